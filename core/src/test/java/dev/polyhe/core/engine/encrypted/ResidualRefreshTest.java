package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.PlainTensor;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where a residual block's sums are refreshed (issue 17): its two branches end in linear maps whose outputs land on
 * Δ, so they add at level 0 with no bootstrap; and the sum, refreshed once for its row mean, is not refreshed again
 * for x − mean. Before, the Pythia-70M-shaped layer bootstrapped four ciphertexts for the sum and four more for
 * the next LayerNorm, alone each.
 */
class ResidualRefreshTest {
    private static final int TOKENS = 6;
    private static final int SLOTS = 8;
    private static final int HIDDEN = 8;
    private static final Packing PACKING = new Packing(SLOTS, 4, 1);

    private static BootstrappingRing ring;

    @BeforeAll
    static void open() {
        ring = new BootstrappingRing(PACKING);
    }

    @AfterAll
    static void close() {
        ring.close();
    }

    private static EncryptedEngine engine() {
        return ring.engine();
    }

    private static Matrix random(int rows, int cols, long seed, double magnitude) {
        double[] v = new double[rows * cols];
        Random rnd = new Random(seed);
        for (int i = 0; i < v.length; i++) {
            v[i] = magnitude * (2 * rnd.nextDouble() - 1);
        }
        return new Matrix(rows, cols, v);
    }

    /** x times ones until its ciphertexts are at {@code level}. */
    private static EncryptedTensor downTo(EncryptedEngine engine, EncryptedTensor x, int level) {
        double[] one = new double[TOKENS * HIDDEN];
        Arrays.fill(one, 1);
        EncryptedTensor ones = engine.fromPlain(new Matrix(TOKENS, HIDDEN, one));
        while (x.level() > level) {
            x = engine.mul(x, ones);
        }
        return x;
    }

    private static long bootstraps(EncryptedEngine engine) {
        return engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);
    }

    private static double maxAbsDiff(Matrix a, Matrix b) {
        double worst = 0;
        for (int i = 0; i < a.data().length; i++) {
            worst = Math.max(worst, Math.abs(a.data()[i] - b.data()[i]));
        }
        return worst;
    }

    @Test
    void linearMapsLandOnDeltaSoTwoBranchesAddAtLevelZeroWithoutARefresh() {
        EncryptedEngine engine = engine();
        Matrix x = random(TOKENS, HIDDEN, 3, 1);
        Matrix w1 = random(HIDDEN, HIDDEN, 4, 0.5);
        Matrix w2 = random(HIDDEN, HIDDEN, 5, 0.5);
        // two branches with different histories (products by ones; squarings), so their scales are off Δ, and off
        // each other, by the primes' distances from Δ
        EncryptedTensor a = downTo(engine, engine.fromPlain(x), 1);
        EncryptedTensor b = engine.fromPlain(x);
        int squarings = 0;
        while (b.level() > 1) {
            b = engine.mul(b, b);
            squarings++;
        }
        assertEquals(1, a.level());
        double delta = ring.context().parameters().scale();
        assertTrue(
                Math.abs(a.scale() / delta - 1) > 1e-9 && Math.abs(b.scale() / delta - 1) > 1e-9,
                "precondition: the inputs are off Δ: " + a.scale() + ", " + b.scale());
        EncryptedTensor ya = engine.linear(a, w1, null);
        EncryptedTensor yb = engine.linear(b, w2, null);
        for (EncryptedTensor y : new EncryptedTensor[] {ya, yb}) {
            for (Ciphertext c : y.ciphertexts()) {
                assertEquals(0, c.level());
                assertEquals(delta, c.scale(), 1e-12 * delta, "a linear map's output on Δ");
            }
        }
        long before = bootstraps(engine);

        EncryptedTensor sum = engine.add(ya, yb);

        assertEquals(before, bootstraps(engine), "the two branches added without a bootstrap");
        assertEquals(0, sum.level());
        PlainEngine plain = new PlainEngine();
        PlainTensor px = plain.fromPlain(x);
        PlainTensor pb = px;
        for (int i = 0; i < squarings; i++) {
            pb = plain.mul(pb, pb);
        }
        Matrix want = plain.add(plain.linear(px, w1, null), plain.linear(pb, w2, null))
                .toMatrix();
        assertTrue(maxAbsDiff(want, engine.toPlain(sum)) < 1e-4, "the sum's values");
    }

    @Test
    void aValueRefreshedForItsMeanIsNotRefreshedAgainForXMinusTheMean() {
        EncryptedEngine engine = engine();
        Matrix x = random(TOKENS, HIDDEN, 7, 1);
        EncryptedTensor t = engine.bound(downTo(engine, engine.fromPlain(x), 0), -1, 1);
        int ciphertexts = t.ciphertexts().length;
        long before = bootstraps(engine);

        // LayerNorm's first steps: the mean costs a level, so x is refreshed for it; x − mean then reads that copy
        EncryptedTensor centered = engine.sub(t, engine.rowMeans(t));
        EncryptedTensor squared = engine.mul(centered, centered);

        assertEquals((ciphertexts + 1) / 2, bootstraps(engine) - before, "x refreshed once, in pairs, and only x");
        PlainEngine plain = new PlainEngine();
        PlainTensor px = plain.fromPlain(x);
        PlainTensor pc = plain.sub(px, plain.rowMeans(px));
        assertTrue(maxAbsDiff(plain.mul(pc, pc).toMatrix(), engine.toPlain(squared)) < 1e-3, "(x − mean)²");
    }
}
