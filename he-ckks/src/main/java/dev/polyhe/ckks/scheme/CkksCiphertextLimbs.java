package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.ckks.bootstrap.CiphertextLimbs;
import dev.polyhe.ckks.executor.RingExecutor;

/** Gives the bootstrapping package ModRaise and slot views of this package's ciphertexts. */
final class CkksCiphertextLimbs implements CiphertextLimbs {
    private final RingExecutor exec;

    CkksCiphertextLimbs(RingExecutor exec) {
        this.exec = exec;
    }

    @Override
    public Ciphertext modRaise(Ciphertext levelZero, int top, double scale, int slots) {
        CkksCiphertext x = (CkksCiphertext) levelZero;
        return new CkksCiphertext(exec.modRaise(x.c0, top), exec.modRaise(x.c1, top), top, scale, slots,
                x.parameterHash(), x.keySetId());
    }

    @Override
    public Ciphertext view(Ciphertext c, int slots) {
        CkksCiphertext x = (CkksCiphertext) c;
        return new CkksCiphertext(x.c0, x.c1, x.level(), x.scale(), slots, x.parameterHash(), x.keySetId());
    }
}
