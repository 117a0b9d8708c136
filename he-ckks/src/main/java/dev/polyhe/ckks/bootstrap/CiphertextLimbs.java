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

    /**
     * The same limbs read at another scale: for a caller whose limbs already hold the values at {@code scale}
     * (a transform encoded for one output scale whose product lands at another).
     */
    Ciphertext relabel(Ciphertext c, double scale);

    /** The same limbs read with another slot count (a vector that repeats with the smaller one). */
    Ciphertext view(Ciphertext c, int slots);

    /**
     * A linear transform's diagonal, in the form {@link #multiplyDiagonalsAndRescale} reads fastest (over the special
     * primes too where the ring executor double-hoists).
     */
    EncodedDiagonal encodeDiagonal(double[] real, double[] imag, int slots, int level, double scale);

    /**
     * Σ_g rot(Σ_b diagonals[g][b] ⊙ rot(ct, babySteps[b]), giantSteps[g]), rescaled: diagonals[g][b] from
     * {@link #encodeDiagonal} at ct's level and one scale, null where the matrix has none.
     */
    Ciphertext multiplyDiagonalsAndRescale(
            Ciphertext ct, int[] babySteps, int[] giantSteps, EncodedDiagonal[][] diagonals);
}
