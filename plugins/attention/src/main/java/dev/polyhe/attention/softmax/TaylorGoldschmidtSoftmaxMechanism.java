package dev.polyhe.attention.softmax;

import dev.polyhe.api.Options;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.DeclaredMechanism;
import dev.polyhe.attention.kernel.OptionRules;
import dev.polyhe.attention.kernel.RowInverse;
import java.util.Map;
import java.util.Set;

/**
 * Service {@code softmax-taylor-goldschmidt}: options degree (Taylor exp, default 8), iterations (Goldschmidt,
 * default 21), subtract-max (default false; true makes it plaintext-only), lo and hi (Goldschmidt domain of
 * the row mean of the exponentials, defaults 1e-3 and 100).
 */
public final class TaylorGoldschmidtSoftmaxMechanism extends DeclaredMechanism {
    public static final String NAME = "softmax-taylor-goldschmidt";
    static final Set<String> OPTIONS = Set.of("degree", "iterations", "subtract-max", "lo", "hi");

    public TaylorGoldschmidtSoftmaxMechanism() {
        super(
                NAME,
                "NEXUS-style softmax baseline: Taylor exp (degree 8) and Goldschmidt division (21 iterations)",
                OPTIONS);
    }

    @Override
    public AttentionKernel create(Options options, Approximations approximations) {
        OptionRules.requireOnly(options, OPTIONS);
        int degree = options.getInt("degree", 8);
        // The Taylor polynomial needs no domain; [−1, 1] is where its error is reported.
        Approximation exp = approximations.approximate(
                "taylor-exp",
                new ApproximationSpec(
                        "exp",
                        Math::exp,
                        new Domain(-1, 1),
                        new Options(options.owner(), Map.of("degree", String.valueOf(degree)))));
        RowInverse division = RowInverse.goldschmidt(
                approximations,
                options.owner(),
                options.getInt("iterations", 21),
                options.getDouble("lo", 1e-3),
                options.getDouble("hi", 100));
        return new TaylorGoldschmidtSoftmax(exp, division, options.getBoolean("subtract-max", false));
    }
}
