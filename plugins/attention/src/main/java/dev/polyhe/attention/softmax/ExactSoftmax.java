package dev.polyhe.attention.softmax;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.MultiplicativeMask;
import dev.polyhe.attention.kernel.RowMax;

/**
 * The reference: w_j = M_j·exp(x_j − m) / Σ_i M_i·exp(x_i − m) with m the row maximum of the masked scores
 * (the log-sum-exp trick; the result does not depend on m). Non-polynomial: plaintext engines only.
 */
final class ExactSoftmax implements AttentionKernel {
    @Override
    public String describe() {
        return SoftmaxMechanism.NAME + "(exact)";
    }

    @Override
    public boolean polynomial() {
        return false;
    }

    @Override
    public <M> M normalize(TensorOps<M> ops, M scores, Matrix mask) {
        // The max over visible scores (masked ones count as 0) keeps exp(x − m) ≤ e^0 for every visible key.
        M shift = RowMax.of(ops, MultiplicativeMask.apply(ops, scores, mask));
        M e = MultiplicativeMask.apply(ops, ops.exact(ops.sub(scores, shift), "exp", Math::exp), mask);
        return ops.mul(e, ops.exact(ops.rowSums(e), "1/x", v -> 1 / v));
    }
}
