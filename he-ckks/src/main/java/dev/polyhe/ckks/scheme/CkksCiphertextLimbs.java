package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.ckks.bootstrap.CiphertextLimbs;
import dev.polyhe.ckks.bootstrap.EncodedDiagonal;
import dev.polyhe.ckks.executor.RingExecutor;

/**
 * Gives the bootstrapping package ModRaise, slot views and the diagonal products of this package's ciphertexts,
 * under one evaluator's keys.
 */
final class CkksCiphertextLimbs implements CiphertextLimbs {
    private final RingExecutor exec;
    private final CkksEvaluator evaluator;

    CkksCiphertextLimbs(RingExecutor exec, CkksEvaluator evaluator) {
        this.exec = exec;
        this.evaluator = evaluator;
    }

    @Override
    public EncodedDiagonal encodeDiagonal(double[] real, double[] imag, int slots, int level, double scale) {
        return evaluator.encodeDiagonal(real, imag, slots, level, scale);
    }

    @Override
    public Ciphertext multiplyDiagonalsAndRescale(
            Ciphertext ct, int[] babySteps, int[] giantSteps, EncodedDiagonal[][] diagonals) {
        return evaluator.multiplyDiagonalsAndRescale(ct, babySteps, giantSteps, diagonals);
    }

    @Override
    public Ciphertext modRaise(Ciphertext levelZero, int top, double scale, int slots) {
        CkksCiphertext x = (CkksCiphertext) levelZero;
        return new CkksCiphertext(
                exec.modRaise(x.c0, top), exec.modRaise(x.c1, top), top, scale, slots, x.parameterHash(), x.keySetId());
    }

    @Override
    public Ciphertext relabel(Ciphertext c, double scale) {
        CkksCiphertext x = (CkksCiphertext) c;
        return new CkksCiphertext(x.c0, x.c1, x.level(), scale, x.slots(), x.parameterHash(), x.keySetId());
    }

    @Override
    public Ciphertext view(Ciphertext c, int slots) {
        CkksCiphertext x = (CkksCiphertext) c;
        return new CkksCiphertext(x.c0, x.c1, x.level(), x.scale(), slots, x.parameterHash(), x.keySetId());
    }
}
