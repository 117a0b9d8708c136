package dev.polyhe.backend.cpu.ckks;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.backend.cpu.bootstrap.CiphertextLimbs;

/** Gives the bootstrapping package the limbs of this package's ciphertexts, and ciphertexts from limbs. */
final class CpuCiphertextLimbs implements CiphertextLimbs {
    @Override
    public long[][][] limbs(Ciphertext c) {
        CpuCiphertext x = (CpuCiphertext) c;
        return new long[][][] {x.c0, x.c1};
    }

    @Override
    public Ciphertext of(Ciphertext like, long[][] c0, long[][] c1, int level, double scale, int slots) {
        CpuCiphertext x = (CpuCiphertext) like;
        return new CpuCiphertext(c0, c1, level, scale, slots, x.parameterHash(), x.keySetId());
    }
}
