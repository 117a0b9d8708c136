package dev.polyhe.attention.power;

import dev.polyhe.api.Options;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.DeclaredMechanism;
import dev.polyhe.attention.kernel.OptionRules;

/**
 * Service {@code power-softmax-length-agnostic}: the paper's inference form (Eq. 7), polynomial by default —
 * Goldschmidt division (21 iterations) on the row mean's domain [lo, hi] = [1e-3, 100]. Same options as
 * {@code power-softmax} except {@code length-agnostic}, which is always on.
 */
public final class LengthAgnosticPowerSoftmaxMechanism extends DeclaredMechanism {
    public static final String NAME = "power-softmax-length-agnostic";

    public LengthAgnosticPowerSoftmaxMechanism() {
        super(
                NAME,
                "PowerSoftmax for inference (Eq. 7): (x/L')^p/(ε/L + Mean x^p) with Goldschmidt division",
                PowerSoftmaxSettings.COMMON_OPTIONS);
    }

    @Override
    public AttentionKernel create(Options options, Approximations approximations) {
        OptionRules.requireOnly(options, PowerSoftmaxSettings.COMMON_OPTIONS);
        return new PowerSoftmax(NAME, PowerSoftmaxSettings.parse(options, approximations, true, "goldschmidt"));
    }
}
