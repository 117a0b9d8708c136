package dev.polyhe.attention.softmax;

import dev.polyhe.api.Options;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.DeclaredMechanism;
import dev.polyhe.attention.kernel.OptionRules;
import java.util.Map;
import java.util.Set;

/**
 * Service {@code softmax-square} (Cho et al. 2024, normalize-and-square): options squarings (k, 0..12,
 * default 4), range (R > 0: scores assumed in [−R, R], default 8), degree (Taylor exp on [−R/2^k, R/2^k],
 * default 6), iterations (crude intermediate Goldschmidt divisions, 1..30, default 4), final-iterations (the
 * last, accurate one, 1..30, default 14). The defaults give depth 48 without a mask, the figure the paper
 * quotes for this method.
 */
public final class NormalizeAndSquareMechanism extends DeclaredMechanism {
    public static final String NAME = "softmax-square";
    static final Set<String> OPTIONS = Set.of("squarings", "range", "degree", "iterations", "final-iterations");

    public NormalizeAndSquareMechanism() {
        super(
                NAME,
                "Cho et al. 2024 normalize-and-square softmax baseline (Taylor exp of x/2^k, k squarings with "
                        + "Goldschmidt normalizations)",
                OPTIONS);
    }

    @Override
    public AttentionKernel create(Options options, Approximations approximations) {
        OptionRules.requireOnly(options, OPTIONS);
        int squarings = options.getInt("squarings", 4, 0, 12);
        double range = OptionRules.positive(options, "range", 8, "scores are assumed in [−range, range]");
        int degree = options.getInt("degree", 6);
        int iterations = options.getInt("iterations", 4, 1, 30);
        int finalIterations = options.getInt("final-iterations", 14, 1, 30);
        double small = range / Math.scalb(1.0, squarings);
        Approximation exp = approximations.approximate(
                "taylor-exp",
                new ApproximationSpec(
                        "exp",
                        Math::exp,
                        new Domain(-small, small),
                        new Options(options.owner(), Map.of("degree", String.valueOf(degree)))));
        NormalizeAndSquareSoftmax kernel = new NormalizeAndSquareSoftmax(
                approximations, options.owner(), exp, squarings, range, iterations, finalIterations);
        kernel.stageDivision(0, 2);
        kernel.stageDivision(squarings, 2);
        return kernel;
    }
}
