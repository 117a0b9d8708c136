package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.engine.PlainEngine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Where the keys conjugate, a map on column blocks carries two output blocks as one complex ciphertext (issue 51,
 * item 1): the same values as one block at a time, with half the weight encodes and products plus one conjugation
 * per pair; an odd last block runs alone.
 */
class PairedBlocksTest {
    private static final int TOKENS = 5;
    private static final int SLOTS = 8;

    private record Run(Matrix y, long encodes, long plaintextProducts, long rotations) {}

    private static Matrix random(Random rnd, int rows, int cols) {
        double[] d = new double[rows * cols];
        for (int i = 0; i < d.length; i++) {
            d[i] = 2 * rnd.nextDouble() - 1;
        }
        return new Matrix(rows, cols, d);
    }

    private static Run run(HeContext ctx, Matrix x, Matrix w1, Matrix w2, double[] bias, boolean conjugation) {
        Packing packing = new Packing(SLOTS, 4, 1);
        SecretKey sk = ctx.generateSecretKey();
        EvaluationKeys keys = ctx.generateEvaluationKeys(sk, packing.rotationSteps(), conjugation, false);
        EncryptedEngine e =
                new EncryptedEngine(ctx, ctx.evaluator(keys), keys, ctx.encryptor(sk), ctx.decryptor(sk), packing);
        EncryptedTensor h = e.linear(e.fromPlain(x), w1, null);
        assertEquals(Layout.BLOCKS, h.layout());
        EncryptedTensor y;
        try (var scope = e.operator("second")) {
            y = e.linear(h, w2, bias);
        }
        assertEquals(3, y.ciphertexts().length, "10 columns in blocks of 4");
        OperatorStats s = e.accounting().operators().get("second");
        return new Run(e.toPlain(y), s.encodes(), s.plaintextMultiplications(), s.rotations());
    }

    @Test
    void twoOutputBlocksShareOneComplexCiphertext() {
        try (PolyHe polyhe = PolyHe.builder().build()) {
            HeBackend backend = polyhe.plugins().backend("ckks-cpu");
            List<Integer> q = new ArrayList<>(List.of(50));
            q.addAll(Collections.nCopies(6, 40));
            try (HeContext ctx =
                    backend.open(new CkksParameters(10, q, List.of(55, 55), 7, 40, 0, SecurityLevel.INSECURE_TEST))) {
                Random rnd = new Random(31);
                Matrix x = random(rnd, TOKENS, 6);
                Matrix w1 = random(rnd, 8, 6);
                Matrix w2 = random(rnd, 10, 8);
                double[] bias = random(rnd, 1, 10).data();
                PlainEngine plain = new PlainEngine();
                Matrix expected = plain.linear(plain.linear(plain.fromPlain(x), w1, null), w2, bias)
                        .toMatrix();
                Run alone = run(ctx, x, w1, w2, bias, false);
                Run paired = run(ctx, x, w1, w2, bias, true);
                for (Run r : List.of(alone, paired)) {
                    double err = EncryptedEngineTest.maxAbsDiff(expected, r.y());
                    assertTrue(err < 1e-4, "off by " + err);
                }
                // 3 output blocks from 2 input blocks of 4 diagonals: 24 weights alone, 16 paired (one pair, one
                // alone); and a bias per block, and the pair's i
                assertEquals(24 + 3, alone.encodes(), alone.toString());
                assertEquals(16 + 3 + 1, paired.encodes(), paired.toString());
                assertEquals(24, alone.plaintextProducts(), alone.toString());
                assertEquals(16 + 1, paired.plaintextProducts(), "and the pair's product by i: " + paired);
                // a baby rotation per input block; a giant one per output block alone, per task paired, and the
                // pair's conjugation
                assertEquals(2 + 3, alone.rotations(), alone.toString());
                assertEquals(2 + 2 + 1, paired.rotations(), paired.toString());
            }
        }
    }
}
