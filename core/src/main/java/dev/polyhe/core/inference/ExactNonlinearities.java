package dev.polyhe.core.inference;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.approx.TargetFunctions;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.model.Nonlinearities;

/**
 * The reference model's non-polynomial steps: exact 1/√x, erf-GELU and tanh (plaintext engines only), and the
 * configured attention kernel (exact softmax or PowerSoftmax with exact division).
 */
public final class ExactNonlinearities implements Nonlinearities {
    private final AttentionKernel attention;

    public ExactNonlinearities(AttentionKernel attention) {
        this.attention = attention;
    }

    public AttentionKernel attentionKernel() {
        return attention;
    }

    @Override
    public <M> M invSqrt(TensorOps<M> ops, M x, String site) {
        return ops.exact(x, "1/sqrt(x)", TargetFunctions.named("inv-sqrt"));
    }

    @Override
    public <M> M gelu(TensorOps<M> ops, M x, String site) {
        return ops.exact(x, "gelu", TargetFunctions::gelu);
    }

    @Override
    public <M> M tanh(TensorOps<M> ops, M x, String site) {
        return ops.exact(x, "tanh", Math::tanh);
    }

    @Override
    public <M> M attention(TensorOps<M> ops, M scores, Matrix mask, String site) {
        return attention.normalize(ops, scores, mask);
    }
}
