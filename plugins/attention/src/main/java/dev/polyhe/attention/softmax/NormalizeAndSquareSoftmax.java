package dev.polyhe.attention.softmax;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.MultiplicativeMask;
import dev.polyhe.attention.kernel.RowInverse;

/**
 * The normalize-and-square softmax of Cho et al. 2024 (their Alg. 2; paper Table 5 (ii)). With scores in
 * [−R, R], softmax(x) is reached from y = exp(x/2^k), which a low-degree Taylor polynomial gets right on the
 * small range [−R/2^k, R/2^k], by k rounds of y ← y² followed by a normalization: softmax(2x) is the
 * normalized square of softmax(x). Normalizing after every squaring keeps the values bounded, and because a
 * row scaled by any constant normalizes to the same result, the intermediate divisions may be crude (few
 * Goldschmidt iterations); only the last one must be accurate.
 *
 * <p>Divisions work on row means over the visible keys (mean 1 after each normalization), whose domain depends
 * on R, not on L: [e^{−R/2^k}, e^{R/2^k}] at first, then, after the j-th squaring, [1, min(L, e^{R·2^j/2^k})]
 * (Jensen below, the largest entry above). Without a mask the 1/L of the mean is folded into Goldschmidt's
 * scale; with one, the per-row 1/(visible keys) is a public plaintext product.
 */
final class NormalizeAndSquareSoftmax implements AttentionKernel {
    private final Approximations approximations;
    private final String owner;
    private final Approximation exp;
    private final int squarings;
    private final double range;
    private final int iterations;
    private final int finalIterations;

    NormalizeAndSquareSoftmax(
            Approximations approximations,
            String owner,
            Approximation exp,
            int squarings,
            double range,
            int iterations,
            int finalIterations) {
        this.approximations = approximations;
        this.owner = owner;
        this.exp = exp;
        this.squarings = squarings;
        this.range = range;
        this.iterations = iterations;
        this.finalIterations = finalIterations;
    }

    @Override
    public String describe() {
        return NormalizeAndSquareMechanism.NAME + "(squarings=" + squarings + ", range=" + range + ", " + exp.describe()
                + ", iterations=" + iterations + ", final-iterations=" + finalIterations + ")";
    }

    @Override
    public boolean polynomial() {
        return true;
    }

    /** The Goldschmidt division of stage j (0 = before any squaring) for rows of {@code keys} keys. */
    RowInverse stageDivision(int stage, int keys) {
        double[] d = stageDomain(stage, keys);
        return RowInverse.goldschmidt(
                approximations, owner, stage == squarings ? finalIterations : iterations, d[0], d[1]);
    }

    /**
     * The domain [lo, hi] of stage j's row means. After a squaring the mean is at least the square of the mean
     * before (Jensen), and that one is 1 − e^(2^n) of the crude division before it, n its iterations and |e| ≤
     * (hi − lo)/(hi + lo) on its domain: Goldschmidt from the public scale never overshoots 1/x. Taking it for 1 left
     * the last division's inputs below its domain (13 % below, 4 iterations on [1, 14.8]).
     */
    private double[] stageDomain(int stage, int keys) {
        if (stage == 0) {
            return new double[] {
                Math.exp(-range / Math.scalb(1.0, squarings)), Math.exp(range / Math.scalb(1.0, squarings))
            };
        }
        double[] before = stageDomain(stage - 1, keys);
        double contraction = (before[1] - before[0]) / (before[1] + before[0]);
        double shortfall = Math.pow(contraction, Math.scalb(1.0, iterations));
        double hi = Math.max(2, Math.min(keys, Math.exp(range * Math.scalb(1.0, stage - squarings))));
        // a row of one key meets the bound exactly: a hair below it for rounding
        return new double[] {(1 - shortfall) * (1 - shortfall) * (1 - 1e-9), hi};
    }

    @Override
    public <M> M normalize(TensorOps<M> ops, M scores, Matrix mask) {
        int keys = ops.cols(scores);
        Matrix inverseVisible = mask == null ? null : MultiplicativeMask.inverseVisibleCounts(mask);
        M x = squarings == 0 ? scores : ops.mulConstant(scores, Math.scalb(1.0, -squarings));
        M y = MultiplicativeMask.apply(ops, exp.evaluateOnDomain(ops, x), mask);
        for (int stage = 0; stage <= squarings; stage++) {
            if (stage > 0) {
                y = ops.square(y);
            }
            boolean last = stage == squarings;
            RowInverse division = stageDivision(stage, keys);
            if (inverseVisible == null) {
                M inverseSum = division.inverse(ops, ops.rowSums(y), keys);
                y = ops.mul(y, inverseSum);
                if (!last) {
                    y = ops.mulConstant(y, keys); // back to mean 1; an integer, so free
                }
            } else {
                // 1/L_t on the entries before the row sum, as PowerSoftmax's per-row mean: the sums keep their packing
                // and known padding, where a plaintext product of the sums lost both and the encrypted division grew
                // the unused slots as 2^n (a 4-token query: max error 0.041 against the polynomial model)
                M scaled = ops.mulPlain(y, inverseVisible);
                M inverseMean = division.inverse(ops, ops.rowSums(scaled), 1);
                y = ops.mul(last ? scaled : y, inverseMean);
            }
        }
        return y;
    }
}
