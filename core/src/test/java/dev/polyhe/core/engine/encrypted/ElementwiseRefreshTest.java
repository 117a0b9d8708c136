package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where an element-wise product refreshes its operands (issue 17): a tensor's ciphertexts are refreshed together,
 * two by two, whatever other ciphertexts were spent last; and the product of a masked tensor knows its result is
 * large, so it keeps a level to scale the values down before their bootstrap instead of bootstrapping them twice.
 */
class ElementwiseRefreshTest {
    private static final int TOKENS = 6;
    private static final int SLOTS = 8;
    private static final int COLUMNS = 6;

    private static BootstrappingRing ring;

    @BeforeAll
    static void open() {
        ring = new BootstrappingRing(Packing.columns(SLOTS));
    }

    @AfterAll
    static void close() {
        ring.close();
    }

    private static EncryptedEngine engine() {
        return ring.engine();
    }

    private static Matrix random(long seed, double magnitude) {
        double[] v = new double[TOKENS * COLUMNS];
        Random rnd = new Random(seed);
        for (int i = 0; i < v.length; i++) {
            v[i] = magnitude * (2 * rnd.nextDouble() - 1);
        }
        return new Matrix(TOKENS, COLUMNS, v);
    }

    /** x times ones until its ciphertexts are at {@code level}. */
    private static EncryptedTensor downTo(EncryptedEngine engine, EncryptedTensor x, int level) {
        double[] one = new double[TOKENS * COLUMNS];
        java.util.Arrays.fill(one, 1);
        EncryptedTensor ones = engine.fromPlain(new Matrix(TOKENS, COLUMNS, one));
        while (x.level() > level) {
            x = engine.mul(x, ones);
        }
        return x;
    }

    private static double maxError(Matrix got, double[] want) {
        double err = 0;
        for (int i = 0; i < want.length; i++) {
            err = Math.max(err, Math.abs(got.data()[i] - want[i]));
        }
        return err;
    }

    @Test
    void aTensorsSpentCiphertextsAreRefreshedTogetherInPairs() {
        EncryptedEngine engine = engine();
        Matrix x = random(17, 1);
        EncryptedTensor t = downTo(engine, engine.fromPlain(x), 0);
        // Another tensor spent after it: the ciphertexts just spent, where a lone refresh looks for its partner.
        EncryptedTensor other = downTo(engine, engine.fromPlain(random(18, 1)), 0);
        long before = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);

        EncryptedTensor squared = engine.mul(t, t);

        long calls = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L) - before;
        assertEquals(COLUMNS / 2, calls, "six ciphertexts of one tensor, three pair bootstraps");
        List<Accounting.Placement> placements = engine.accounting().placements();
        assertTrue(placements.stream().allMatch(Accounting.Placement::paired), "all paired: " + placements);
        double[] want = new double[x.data().length];
        for (int i = 0; i < want.length; i++) {
            want[i] = x.data()[i] * x.data()[i];
        }
        assertTrue(maxError(engine.toPlain(squared), want) < 1e-3, "error of x² after the refresh");
        assertEquals(0, other.level(), "the other tensor was left as it was");
    }

    @Test
    void aMaskedProductKnowsItsResultIsLargeAndScalesItDownBeforeBootstrapping() {
        EncryptedEngine engine = engine();
        double magnitude = 5;
        Matrix x = random(19, magnitude);
        EncryptedTensor t = engine.bound(downTo(engine, engine.fromPlain(x), 2), -magnitude, magnitude);
        double[] m = new double[TOKENS * COLUMNS];
        for (int r = 0; r < TOKENS; r++) {
            for (int c = 0; c <= Math.min(r, COLUMNS - 1); c++) {
                m[r * COLUMNS + c] = 1; // causal
            }
        }
        EncryptedTensor masked = engine.mulPlain(t, new Matrix(TOKENS, COLUMNS, m));
        EncryptedTensor fourth = engine.mul(engine.mul(masked, masked), engine.mul(masked, masked));

        List<Accounting.Placement> placements = engine.accounting().placements();
        assertFalse(placements.isEmpty(), "x⁴ needs more levels than the masked scores have");
        for (Accounting.Placement p : placements) {
            assertTrue(p.level() >= 1, "refreshed with a level left to scale values of up to 25 down: " + p);
            assertFalse(p.precise(), "no second bootstrap for values stuck large at level 0: " + p);
        }
        double[] want = new double[m.length];
        for (int i = 0; i < want.length; i++) {
            want[i] = Math.pow(x.data()[i] * m[i], 4);
        }
        assertTrue(
                maxError(engine.toPlain(fourth), want) < 1e-2 * Math.pow(magnitude, 4) * 1e-3,
                "error of (x ⊙ mask)⁴ on values up to 625");
    }

    @Test
    void aProductByAPlainMaskRefreshesItsOperandsCiphertextsTogether() {
        EncryptedEngine engine = engine();
        Matrix x = random(21, 1);
        EncryptedTensor t = engine.bound(downTo(engine, engine.fromPlain(x), 0), -1, 1);
        EncryptedTensor other = downTo(engine, engine.fromPlain(random(22, 1)), 0);
        double[] m = new double[TOKENS * COLUMNS];
        for (int r = 0; r < TOKENS; r++) {
            for (int c = 0; c <= Math.min(r, COLUMNS - 1); c++) {
                m[r * COLUMNS + c] = 1;
            }
        }
        long before = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);

        EncryptedTensor masked = engine.mulPlain(t, new Matrix(TOKENS, COLUMNS, m));

        long calls = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L) - before;
        assertEquals(COLUMNS / 2, calls, "six ciphertexts of one tensor, three pair bootstraps");
        assertTrue(
                engine.accounting().placements().stream().allMatch(Accounting.Placement::paired),
                "all paired: " + engine.accounting().placements());
        double[] want = new double[m.length];
        for (int i = 0; i < want.length; i++) {
            want[i] = x.data()[i] * m[i];
        }
        assertTrue(maxError(engine.toPlain(masked), want) < 1e-3, "error of x ⊙ mask after the refresh");
        assertEquals(0, other.level());
    }

    /**
     * A range announced just above the bound the engine worked out (a LayerNorm's output: √H·max|w| + max|b| against
     * the interval bound of its last steps) still marks the values as near their bound, so large values are scaled
     * down before their bootstrap and paired, rather than refreshed alone as they are.
     */
    @Test
    void anAnnouncedRangeJustAboveTheTrackedBoundStillLetsLargeValuesBeScaledDownAndPaired() {
        EncryptedEngine engine = engine();
        double magnitude = 20; // above the 12 one bootstrap refreshes at full precision on this ring
        Matrix x = random(23, magnitude);
        EncryptedTensor t = engine.bound(downTo(engine, engine.fromPlain(x), 1), -1.01 * magnitude, 1.01 * magnitude);

        EncryptedTensor refreshed = engine.reserve(t, 3, Double.NaN);

        List<Accounting.Placement> placements = engine.accounting().placements();
        assertEquals(COLUMNS / 2, placements.size(), "six ciphertexts in pairs: " + placements);
        assertTrue(placements.stream().allMatch(Accounting.Placement::paired), "all paired: " + placements);
        assertTrue(maxError(engine.toPlain(refreshed), x.data()) < 1e-4 * magnitude, "refreshed values");
    }
}
