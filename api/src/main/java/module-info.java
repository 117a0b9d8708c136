/**
 * The PolyHE API: the four service interfaces ({@link dev.polyhe.api.he.HeBackend},
 * {@link dev.polyhe.api.approx.PolynomialApproximator}, {@link dev.polyhe.api.attention.AttentionMechanism},
 * {@link dev.polyhe.api.model.ModelArchitecture}) and the generic arithmetic they share
 * ({@link dev.polyhe.api.arith.Arith}, {@link dev.polyhe.api.arith.TensorOps}).
 */
module dev.polyhe.api {
    exports dev.polyhe.api;
    exports dev.polyhe.api.arith;
    exports dev.polyhe.api.approx;
    exports dev.polyhe.api.attention;
    exports dev.polyhe.api.he;
    exports dev.polyhe.api.model;

    uses dev.polyhe.api.he.HeBackend;
    uses dev.polyhe.api.approx.PolynomialApproximator;
    uses dev.polyhe.api.attention.AttentionMechanism;
    uses dev.polyhe.api.model.ModelArchitecture;
}
