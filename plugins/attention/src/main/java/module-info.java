/**
 * Attention normalizations as {@link dev.polyhe.api.attention.AttentionMechanism} services: exact softmax,
 * PowerSoftmax and its stable, ε-Lipschitz, length-agnostic and masked forms, and the NEXUS (Taylor +
 * Goldschmidt), Cho et al. (normalize-and-square) and Zimerman et al. (scaled ReLU) baselines. Polynomial
 * approximations come from the host's {@link dev.polyhe.api.approx.Approximations}, never from another plugin's
 * classes. Nothing is exported: hosts reach the mechanisms through the services.
 */
module dev.polyhe.attention {
    requires dev.polyhe.api;

    provides dev.polyhe.api.attention.AttentionMechanism with
            dev.polyhe.attention.softmax.SoftmaxMechanism,
            dev.polyhe.attention.power.PowerSoftmaxMechanism,
            dev.polyhe.attention.power.LengthAgnosticPowerSoftmaxMechanism,
            dev.polyhe.attention.softmax.TaylorGoldschmidtSoftmaxMechanism,
            dev.polyhe.attention.softmax.NormalizeAndSquareMechanism,
            dev.polyhe.attention.relu.ScaledReluMechanism;
}
