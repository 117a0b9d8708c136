package dev.polyhe.attention.relu;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.Options;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.MultiplicativeMask;

/**
 * Scaled-ReLU attention (Zimerman et al. 2024): w = ReLU(x)/L ⊙ M, point-wise with no normalization, ReLU
 * replaced by a Chebyshev polynomial on [−R, R]. The 1/L is part of the interpolated target, so it costs no
 * level of its own; the mask is applied after the polynomial, whose value at 0 is not exactly 0.
 */
final class ScaledRelu implements AttentionKernel {
    private final Approximations approximations;
    private final Options approximationOptions;
    private final double range;

    ScaledRelu(Approximations approximations, Options approximationOptions, double range) {
        this.approximations = approximations;
        this.approximationOptions = approximationOptions;
        this.range = range;
    }

    Approximation relu(int keys) {
        ApproximationSpec spec = new ApproximationSpec(
                "relu/" + keys, x -> Math.max(0, x) / keys, new Domain(-range, range), approximationOptions);
        return approximations.approximate("chebyshev", spec);
    }

    @Override
    public String describe() {
        return ScaledReluMechanism.NAME + "(chebyshev degree="
                + approximationOptions.values().get("degree") + " on [-" + range + ", " + range + "])";
    }

    @Override
    public boolean polynomial() {
        return true;
    }

    @Override
    public <M> M normalize(TensorOps<M> ops, M scores, Matrix mask) {
        return MultiplicativeMask.apply(ops, relu(ops.cols(scores)).evaluateOnDomain(ops, scores), mask);
    }
}
