package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;

/**
 * What bootstrapping needs below the {@link dev.polyhe.api.he.Evaluator} API, implemented by the scheme package,
 * which owns the ciphertext type and its ring executor.
 */
public interface CiphertextLimbs {
    /**
     * ModRaise: a level-0 ciphertext's components, their centred coefficients read as integers modulo q_0..q_top,
     * labelled with {@code scale} and viewed with {@code slots} slots.
     */
    Ciphertext modRaise(Ciphertext levelZero, int top, double scale, int slots);

    /** The same limbs read with another slot count (a vector that repeats with the smaller one). */
    Ciphertext view(Ciphertext c, int slots);
}
