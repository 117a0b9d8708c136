package dev.polyhe.attention.power;

import dev.polyhe.api.Options;
import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.attention.AttentionMechanism;
import dev.polyhe.attention.kernel.OptionRules;
import java.util.Set;

/**
 * Service {@code power-softmax-length-agnostic}: the paper's inference form (Eq. 7), polynomial by default —
 * Goldschmidt division (21 iterations) on the row mean's domain [lo, hi] = [1e-3, 100]. Same options as
 * {@code power-softmax} except {@code length-agnostic}, which is always on.
 */
public final class LengthAgnosticPowerSoftmaxMechanism implements AttentionMechanism {
    public static final String NAME = "power-softmax-length-agnostic";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String apiVersion() {
        return PolyHeApi.VERSION;
    }

    @Override
    public String description() {
        return "PowerSoftmax for inference (Eq. 7): (x/L')^p/(ε/L + Mean x^p) with Goldschmidt division";
    }

    @Override
    public Set<String> optionNames() {
        return PowerSoftmaxSettings.COMMON_OPTIONS;
    }

    @Override
    public AttentionKernel create(Options options, Approximations approximations) {
        OptionRules.requireOnly(options, PowerSoftmaxSettings.COMMON_OPTIONS);
        return new PowerSoftmax(NAME, PowerSoftmaxSettings.parse(options, approximations, true, "goldschmidt"));
    }
}
