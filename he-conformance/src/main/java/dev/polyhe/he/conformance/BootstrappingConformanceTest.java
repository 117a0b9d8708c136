package dev.polyhe.he.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.polyhe.api.he.Availability;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.SecretKey;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What {@link Evaluator#bootstrap} must do: a ciphertext at the last level comes back at the promised level
 * and scale with its values kept to the promised precision (in bits, −log2 of the largest error over all
 * slots), on random inputs in [−1, 1] and at the edges of that range, with full and with sparse slots,
 * repeatedly; and inputs beyond the range meet the backend's documented error bound.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class BootstrappingConformanceTest {
    protected abstract HeBackend backend();

    /** A parameter set that can bootstrap (small and insecure keeps the kit fast). */
    protected abstract CkksParameters parameters();

    /** The level a bootstrapped ciphertext comes back at. */
    protected abstract int promisedLevel();

    /** The promised precision, in bits, of one bootstrap of inputs in [−1, 1]. */
    protected abstract double promisedBits();

    /** A sparse slot count to check besides N/2. */
    protected int sparseSlots() {
        return Math.max(2, parameters().slots() / 16);
    }

    /**
     * The documented bound on every slot's |bootstrap(v) − v| for a vector v whose largest magnitude is
     * {@code maxMagnitude}, beyond 1.
     */
    protected abstract double outOfRangeErrorBound(double maxMagnitude);

    /** Magnitudes beyond the supported range at which {@link #outOfRangeErrorBound} is checked. */
    protected double[] outOfRangeMagnitudes() {
        return new double[] {2, 8, 32};
    }

    private HeContext ctx;
    private SecretKey sk;
    private Evaluator ev;
    private final Random random = new Random(20260529);

    /** A backend that cannot run here (no GPU, no driver) has every test skipped, with its reason. */
    @BeforeEach
    void requireAvailableBackend() {
        Availability here = backend().availability();
        assumeTrue(here.available(), () -> backend().name() + " cannot run here: " + here.reason());
    }

    @BeforeAll
    void open() {
        if (!backend().availability().available()) {
            return; // each test is skipped with the reason (below)
        }
        ctx = backend().open(parameters());
        sk = ctx.generateSecretKey();
        EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Set.of(), false, true);
        assertTrue(keys.hasBootstrapping(), "keys generated for bootstrapping say so");
        assertTrue(keys.hasConjugation(), "bootstrapping keys include the conjugation key");
        ev = ctx.evaluator(keys);
    }

    @AfterAll
    void close() {
        if (ctx != null) {
            ctx.close();
        }
    }

    private Ciphertext encryptAtLevelZero(double[] v, int slots) {
        return ctx.encryptor(sk)
                .encrypt(ctx.encoder().encode(v, slots, 0, parameters().scale()));
    }

    private double[] decrypt(Ciphertext c) {
        return ctx.encoder().decode(ctx.decryptor(sk).decrypt(c));
    }

    /** −log2 of the largest error over the slots. */
    protected static double bits(double[] expected, double[] actual) {
        double max = 0;
        for (int i = 0; i < expected.length; i++) {
            max = Math.max(max, Math.abs(expected[i] - actual[i]));
        }
        return -Math.log(max) / Math.log(2);
    }

    private double[] uniform(int slots) {
        double[] v = new double[slots];
        for (int i = 0; i < slots; i++) {
            v[i] = 2 * random.nextDouble() - 1;
        }
        return v;
    }

    private void checkOne(double[] v, int slots, String what) {
        Ciphertext in = encryptAtLevelZero(v, slots);
        Ciphertext out = ev.bootstrap(in);
        assertEquals(promisedLevel(), out.level(), what + ": level after bootstrapping");
        assertEquals(slots, out.slots(), what + ": slot count kept");
        assertEquals(in.scale(), out.scale(), in.scale() * 0x1p-30, what + ": scale kept");
        double b = bits(v, decrypt(out));
        assertTrue(b >= promisedBits(), what + ": " + String.format("%.1f", b) + " bits < promised " + promisedBits());
    }

    /**
     * Two ciphertexts refreshed together keep the promise within a bit (a backend that packs them as one complex
     * bootstrap sees magnitudes up to √2), each at its own scale, full and sparse slots.
     */
    @Test
    void aPairBootstrapRefreshesBothAtTheirOwnScales() {
        for (int slots : new int[] {parameters().slots(), sparseSlots()}) {
            double[] a = uniform(slots);
            double[] b = uniform(slots);
            Ciphertext x = encryptAtLevelZero(a, slots);
            Ciphertext y = ctx.encryptor(sk)
                    .encrypt(ctx.encoder().encode(b, slots, 0, parameters().scale() * (1 + 0x1p-9)));
            Ciphertext[] out = ev.bootstrapPair(x, y);
            assertEquals(2, out.length);
            for (int k = 0; k < 2; k++) {
                assertEquals(promisedLevel(), out[k].level(), slots + " slots, pair member " + k + ": level");
                double bits = bits(k == 0 ? a : b, decrypt(out[k]));
                assertTrue(
                        bits >= promisedBits() - 1,
                        slots + " slots, pair member " + k + ": " + String.format("%.1f", bits) + " bits < promised "
                                + promisedBits() + " - 1");
            }
        }
    }

    @Test
    void randomInputsKeepThePromisedPrecisionWithFullSlots() {
        checkOne(uniform(parameters().slots()), parameters().slots(), "full slots, uniform in [-1, 1]");
    }

    @Test
    void randomInputsKeepThePromisedPrecisionWithSparseSlots() {
        checkOne(uniform(sparseSlots()), sparseSlots(), sparseSlots() + " slots, uniform in [-1, 1]");
    }

    @Test
    void theEdgesOfTheRangeKeepThePromisedPrecision() {
        int slots = parameters().slots();
        double[] edges = {1, -1, 0, 1 - 0x1p-20, -1 + 0x1p-20, 0x1p-20, -0x1p-20};
        double[] v = new double[slots];
        for (int i = 0; i < slots; i++) {
            v[i] = edges[i % edges.length];
        }
        checkOne(v, slots, "edges of [-1, 1]");
    }

    @Test
    void fiveBootstrapsInAChainWithAMultiplyBetweenEach() {
        int slots = parameters().slots();
        double[] expected = uniform(slots);
        Ciphertext ct = encryptAtLevelZero(expected, slots);
        for (int round = 1; round <= 5; round++) {
            ct = ev.bootstrap(ct);
            assertEquals(promisedLevel(), ct.level(), "round " + round + ": level");
            double b = bits(expected, decrypt(ct));
            // each bootstrap adds its error once: allow log2(round) bits for the accumulation
            double floor = promisedBits() - Math.log(round) / Math.log(2);
            assertTrue(b >= floor, "round " + round + ": " + String.format("%.1f", b) + " bits < " + floor);
            // |factor| in [0.8, 1] keeps the product inside [-1, 1] without shrinking it to nothing
            double[] factor = new double[slots];
            for (int i = 0; i < slots; i++) {
                factor[i] = (random.nextBoolean() ? 1 : -1) * (0.8 + 0.2 * random.nextDouble());
                expected[i] *= factor[i];
            }
            Ciphertext f = ctx.encryptor(sk).encrypt(ctx.encoder().encode(factor, slots, ct.level(), ct.scale()));
            ct = ev.rescale(ev.multiply(ct, f));
            ct = ev.dropToLevel(ct, 0);
        }
        assertTrue(bits(expected, decrypt(ct)) >= promisedBits() - 3, "after the fifth multiply");
    }

    @Test
    void inputsBeyondTheRangeMeetTheDocumentedBound() {
        int slots = parameters().slots();
        for (double magnitude : outOfRangeMagnitudes()) {
            assertTrue(magnitude > 1, "out-of-range magnitudes exceed 1");
            double[] v = new double[slots];
            for (int i = 0; i < slots; i++) {
                v[i] = (i % 2 == 0 ? 1 : -1) * magnitude * (0.5 + 0.5 * random.nextDouble());
            }
            v[0] = magnitude;
            double[] out = decrypt(ev.bootstrap(encryptAtLevelZero(v, slots)));
            double bound = outOfRangeErrorBound(magnitude);
            for (int i = 0; i < slots; i++) {
                double err = Math.abs(out[i] - v[i]);
                assertTrue(
                        err <= bound,
                        "input " + v[i] + " (max " + magnitude + "): error " + err + " beyond the documented " + bound);
            }
        }
    }

    @Test
    void keysForOneSlotCountBootstrapThatCount() {
        int n = sparseSlots();
        EvaluationKeys few = ctx.generateEvaluationKeys(sk, Set.of(), false, Set.of(n));
        assertTrue(few.hasBootstrapping() && few.bootstraps(n), "keys made for " + n + " slots bootstrap them");
        assertTrue(
                few.bootstrapSlots().isEmpty() || few.bootstrapSlots().equals(Set.of(n)),
                "bootstrapSlots names the count asked for, or none for a backend whose keys serve all: "
                        + few.bootstrapSlots());
        double[] v = uniform(n);
        Ciphertext out = ctx.evaluator(few).bootstrap(encryptAtLevelZero(v, n));
        assertEquals(promisedLevel(), out.level());
        assertTrue(bits(v, decrypt(out)) >= promisedBits(), "precision with keys for " + n + " slots only");
        if (!few.bootstrapSlots().isEmpty()) {
            int other = n == parameters().slots() ? n / 2 : 2 * n;
            assertFalse(few.bootstraps(other));
            Ciphertext c = encryptAtLevelZero(uniform(other), other);
            assertThrows(
                    HeException.class,
                    () -> ctx.evaluator(few).bootstrap(c),
                    "keys for " + n + " slots refuse " + other);
        }
    }

    @Test
    void bootstrappingWithoutBootstrappingKeysIsRefused() {
        EvaluationKeys plain = ctx.generateEvaluationKeys(sk, Set.of(1), false, false);
        assertFalse(plain.hasBootstrapping());
        Ciphertext c = encryptAtLevelZero(new double[] {0.5}, parameters().slots());
        assertThrows(HeException.class, () -> ctx.evaluator(plain).bootstrap(c));
    }
}
