package dev.polyhe.attention.softmax;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.MultiplicativeMask;
import dev.polyhe.attention.kernel.RowInverse;
import dev.polyhe.attention.kernel.RowMax;

/**
 * The NEXUS-style baseline (Zhang et al. 2024; paper Table 5 (i)): exp by a degree-d Taylor polynomial, the
 * division by Goldschmidt (21 iterations as in the paper's comparison), optionally after subtracting the row
 * max (non-polynomial here: plaintext only). The Goldschmidt domain [lo, hi] is that of the row mean of the
 * exponentials, applied to the sum as in {@code RowInverse}, so it does not depend on the sequence length.
 */
final class TaylorGoldschmidtSoftmax implements AttentionKernel {
    private final Approximation exp;
    private final RowInverse division;
    private final boolean subtractMax;

    TaylorGoldschmidtSoftmax(Approximation exp, RowInverse division, boolean subtractMax) {
        this.exp = exp;
        this.division = division;
        this.subtractMax = subtractMax;
    }

    @Override
    public String describe() {
        return TaylorGoldschmidtSoftmaxMechanism.NAME + "(" + exp.describe() + ", " + division.describe()
                + (subtractMax ? ", subtract-max" : "") + ")";
    }

    @Override
    public boolean polynomial() {
        return !subtractMax && division.polynomial();
    }

    @Override
    public <M> M normalize(TensorOps<M> ops, M scores, Matrix mask) {
        M x = scores;
        if (subtractMax) {
            x = ops.sub(x, RowMax.of(ops, MultiplicativeMask.apply(ops, scores, mask)));
        }
        M e = MultiplicativeMask.apply(ops, exp.evaluateOnDomain(ops, x), mask);
        return ops.mul(e, division.inverse(ops, ops.rowSums(e), ops.cols(scores)));
    }
}
