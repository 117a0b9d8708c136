package dev.polyhe.api.attention;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;

/** A configured attention normalization: scores in, weights out, on any engine. */
public interface AttentionKernel {
    /** e.g. {@code "power-softmax(p=4, epsilon=0.001, length-agnostic)"}. */
    String describe();

    /** Whether every step is a polynomial (so it can run encrypted). */
    boolean polynomial();

    /**
     * Normalizes each row of {@code scores} (queries × keys, already divided by √d; the heads of a layer stacked
     * by rows, see {@link TensorOps#headScores}).
     *
     * @param mask multiplicative mask of the same shape with entries in [0, 1] (0 hides a key), or null
     */
    <M> M normalize(TensorOps<M> ops, M scores, Matrix mask);
}
