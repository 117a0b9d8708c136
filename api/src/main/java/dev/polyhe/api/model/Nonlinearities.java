package dev.polyhe.api.model;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;

/**
 * The non-polynomial steps of a transformer, supplied by the host: exact functions for the reference
 * model, polynomial approximations (with calibrated domains) for the polynomial and encrypted models, or
 * recorders for calibration. Each call names its site (e.g. {@code "layers.0.input_layernorm"}) so the
 * host can give every site its own domain and account for it.
 */
public interface Nonlinearities {
    /** 1/√x element-wise (LayerNorm's normalizer; the input is variance + eps). */
    <M> M invSqrt(TensorOps<M> ops, M x, String site);

    /** GELU element-wise. */
    <M> M gelu(TensorOps<M> ops, M x, String site);

    /** tanh element-wise (classifier heads). */
    <M> M tanh(TensorOps<M> ops, M x, String site);

    /**
     * Attention normalization of scores already divided by √d, row by row; {@code mask} multiplicative or null.
     * Multi-head scores come stacked ({@link TensorOps#headScores}: [heads·T, T]) with the mask tiled to match.
     */
    <M> M attention(TensorOps<M> ops, M scores, Matrix mask, String site);
}
