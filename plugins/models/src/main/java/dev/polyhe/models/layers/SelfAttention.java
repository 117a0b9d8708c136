package dev.polyhe.models.layers;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.OperatorScope;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Nonlinearities;

/**
 * Multi-head self-attention: Q, K, V projections, an optional rotary embedding on Q and K, per-head scores
 * Q_h K_hᵀ / √d (the 1/√d already folded into {@code query}, see {@link #withScaledQuery}) normalized by the host's
 * attention kernel (softmax, PowerSoftmax, …), the heads' contexts concatenated in order and the output projection.
 */
public record SelfAttention(Linear query, Linear key, Linear value, Linear output, int heads, RotaryEmbedding rotary) {

    /**
     * Folds 1/√d into the query projection (weights and bias), so the scores need no multiplication by a
     * real constant: one multiplicative level less under encryption. Rotary is linear, so rotating the scaled
     * query gives the same scores.
     */
    public static SelfAttention withScaledQuery(
            Linear query, Linear key, Linear value, Linear output, int heads, RotaryEmbedding rotary) {
        int d = query.out() / heads;
        double scale = 1 / Math.sqrt(d);
        double[] w = query.weight().data().clone();
        for (int i = 0; i < w.length; i++) {
            w[i] *= scale;
        }
        double[] b = query.bias() == null ? null : query.bias().clone();
        if (b != null) {
            for (int i = 0; i < b.length; i++) {
                b[i] *= scale;
            }
        }
        return new SelfAttention(
                new Linear(new Matrix(query.weight().rows(), query.weight().cols(), w), b),
                key,
                value,
                output,
                heads,
                rotary);
    }

    /**
     * @param mask multiplicative [tokens, tokens] mask (causal) or null when every key is visible
     */
    @SuppressWarnings("try") // the scope only brackets the work for the engine's accounting
    public <M> M apply(TensorOps<M> ops, M x, Matrix mask, Nonlinearities nl, String site) {
        try (OperatorScope s = ops.operator(site)) {
            M q = query.apply(ops, x);
            M k = key.apply(ops, x);
            M v = value.apply(ops, x);
            if (rotary != null) {
                q = rotary.apply(ops, q);
                k = rotary.apply(ops, k);
            }
            // All heads at once: scores stacked [heads·T, T], the mask tiled to match.
            M scores = ops.headScores(q, k, heads);
            M weights = nl.attention(ops, scores, mask == null ? null : perHead(mask, heads), site);
            M context = ops.headContexts(weights, v, heads);
            return output.apply(ops, context);
        }
    }

    /** The [T, T] mask repeated for every head's block of rows. */
    static Matrix perHead(Matrix mask, int heads) {
        if (heads == 1) {
            return mask;
        }
        double[] d = new double[heads * mask.data().length];
        for (int h = 0; h < heads; h++) {
            System.arraycopy(mask.data(), 0, d, h * mask.data().length, mask.data().length);
        }
        return new Matrix(heads * mask.rows(), mask.cols(), d);
    }
}
