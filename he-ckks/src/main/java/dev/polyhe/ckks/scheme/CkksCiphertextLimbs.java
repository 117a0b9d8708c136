package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.ckks.bootstrap.CiphertextLimbs;

/** Gives the bootstrapping package the limbs of this package's ciphertexts, and ciphertexts from limbs. */
final class CkksCiphertextLimbs implements CiphertextLimbs {
    @Override
    public long[][][] limbs(Ciphertext c) {
        CkksCiphertext x = (CkksCiphertext) c;
        return new long[][][] {x.c0, x.c1};
    }

    @Override
    public Ciphertext of(Ciphertext like, long[][] c0, long[][] c1, int level, double scale, int slots) {
        CkksCiphertext x = (CkksCiphertext) like;
        return new CkksCiphertext(c0, c1, level, scale, slots, x.parameterHash(), x.keySetId());
    }
}
