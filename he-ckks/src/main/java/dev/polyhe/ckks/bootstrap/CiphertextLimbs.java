package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;

/**
 * What bootstrapping needs below the {@link dev.polyhe.api.he.Evaluator} API: a ciphertext's limbs, and a
 * ciphertext made from limbs. Implemented by the ckks package, which owns the ciphertext type.
 */
public interface CiphertextLimbs {
    /** {c0, c1}, limbs 0..level in NTT form; not to be written. */
    long[][][] limbs(Ciphertext c);

    /** A ciphertext of {@code like}'s key set, from limbs 0..level in NTT form, viewed with {@code slots} slots. */
    Ciphertext of(Ciphertext like, long[][] c0, long[][] c1, int level, double scale, int slots);
}
