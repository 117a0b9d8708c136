package com.example.polyhe.taylor;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.Options;
import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.attention.AttentionMechanism;
import java.util.Set;

/**
 * Second-order Taylor softmax (de Brébisson and Vincent, 2016): w_j = f(x_j) / Σ f(x_i) with
 * f(x) = 1 + x + x²/2, which is positive everywhere, so the denominator never vanishes. The division is exact
 * in plaintext, or a Goldschmidt inverse taken from the host's approximators ({@code division=goldschmidt}),
 * which makes the whole mechanism polynomial. About fifty lines of arithmetic and no HE code: it runs on
 * every engine the host has.
 */
public final class TaylorSoftmax implements AttentionMechanism {
    @Override
    public String name() {
        return "taylor-softmax";
    }

    @Override
    public String apiVersion() {
        return PolyHeApi.VERSION;
    }

    @Override
    public String description() {
        return "second-order Taylor softmax (example third-party plugin)";
    }

    @Override
    public Set<String> optionNames() {
        return Set.of("division", "iterations", "lo", "hi");
    }

    @Override
    public AttentionKernel create(Options options, Approximations approximations) {
        options.requireOnly(optionNames());
        String division = options.getString("division", "exact");
        Approximation inverse = switch (division) {
            case "exact" -> null;
            case "goldschmidt" ->
                approximations.approximate(
                        "goldschmidt-inverse",
                        ApproximationSpec.of(
                                        "1/x",
                                        x -> 1 / x,
                                        options.getDouble("lo", 0.5, 1e-9, 1e9),
                                        options.getDouble("hi", 2.0, 1e-9, 1e9))
                                .withOption("iterations", options.getInt("iterations", 12, 1, 64)));
            default ->
                throw new Options.InvalidOptionException(options.owner() + ": option 'division' = '" + division
                        + "' is not allowed; allowed: exact, goldschmidt");
        };
        return new Kernel(inverse);
    }

    private record Kernel(Approximation inverse) implements AttentionKernel {
        @Override
        public String describe() {
            return "taylor-softmax(division=" + (inverse == null ? "exact" : inverse.describe()) + ")";
        }

        @Override
        public boolean polynomial() {
            return inverse != null;
        }

        @Override
        public <M> M normalize(TensorOps<M> ops, M scores, Matrix mask) {
            M f = ops.addConstant(ops.add(scores, ops.mulConstant(ops.square(scores), 0.5)), 1.0);
            if (mask != null) {
                f = ops.mulPlain(f, mask);
            }
            // The mean, not the sum, keeps the inverse's domain independent of the row length.
            M mean = ops.rowMeans(f);
            M inv = inverse == null ? ops.exact(mean, "1/x", v -> 1 / v) : inverse.evaluate(ops, mean);
            return ops.mulConstant(ops.mul(f, inv), 1.0 / ops.cols(scores));
        }
    }
}
