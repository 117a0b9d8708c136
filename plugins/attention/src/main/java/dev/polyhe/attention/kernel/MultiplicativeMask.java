package dev.polyhe.attention.kernel;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import java.util.Arrays;

/**
 * The paper's App. I mask: an element-wise product with M (entries in [0, 1], 0 hides a key), e.g. causal.
 * {@code null} means every key is visible and costs nothing.
 */
public final class MultiplicativeMask {
    private MultiplicativeMask() {}

    public static <M> M apply(TensorOps<M> ops, M x, Matrix mask) {
        if (mask == null) {
            return x;
        }
        requireShape(ops, x, mask);
        return ops.mulPlain(x, mask);
    }

    public static <M> void requireShape(TensorOps<M> ops, M x, Matrix mask) {
        if (mask.rows() != ops.rows(x) || mask.cols() != ops.cols(x)) {
            throw new IllegalArgumentException("attention mask is [" + mask.rows() + ", " + mask.cols()
                    + "] but the scores are [" + ops.rows(x) + ", " + ops.cols(x) + "]");
        }
    }

    /** 1/(number of visible keys) of each row, as a matrix of the mask's shape: the public per-row mean factor. */
    public static Matrix inverseVisibleCounts(Matrix mask) {
        double[] out = new double[mask.rows() * mask.cols()];
        for (int r = 0; r < mask.rows(); r++) {
            double visible = 0;
            for (int c = 0; c < mask.cols(); c++) {
                visible += mask.get(r, c);
            }
            if (!(visible > 0)) {
                throw new IllegalArgumentException(
                        "attention mask row " + r + " hides every key; at least one must be visible");
            }
            Arrays.fill(out, r * mask.cols(), (r + 1) * mask.cols(), 1 / visible);
        }
        return new Matrix(mask.rows(), mask.cols(), out);
    }
}
