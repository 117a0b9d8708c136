package dev.polyhe.attention.power;

import dev.polyhe.api.Options;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.DeclaredMechanism;
import dev.polyhe.attention.kernel.OptionRules;
import java.util.HashSet;
import java.util.Set;

/**
 * Service {@code power-softmax}: options p (even, 2..64, default 4), epsilon (≥ 0, default 1e-3), stable
 * (default false) with delta (≥ 0, default 1e-6), length-agnostic (default false), division (exact |
 * goldschmidt, default exact) with iterations (default 21), guess-degree (auto, or 0..127: the degree of a Chebyshev
 * first guess of 1/x that Goldschmidt starts from; 0 for none; auto takes the one with the fewest levels), lo and hi
 * (Goldschmidt domain of the denominator, of its row mean when length-agnostic; defaults 1e-3 and 100).
 */
public final class PowerSoftmaxMechanism extends DeclaredMechanism {
    public static final String NAME = "power-softmax";
    private static final Set<String> OPTIONS;

    static {
        Set<String> o = new HashSet<>(PowerSoftmaxSettings.COMMON_OPTIONS);
        o.add("length-agnostic");
        OPTIONS = Set.copyOf(o);
    }

    public PowerSoftmaxMechanism() {
        super(NAME, "PowerSoftmax x^p/(ε + Σx^p): stable, ε-Lipschitz, length-agnostic and masked variants", OPTIONS);
    }

    @Override
    public AttentionKernel create(Options options, Approximations approximations) {
        OptionRules.requireOnly(options, OPTIONS);
        boolean lengthAgnostic = options.getBoolean("length-agnostic", false);
        return new PowerSoftmax(NAME, PowerSoftmaxSettings.parse(options, approximations, lengthAgnostic, "exact"));
    }
}
