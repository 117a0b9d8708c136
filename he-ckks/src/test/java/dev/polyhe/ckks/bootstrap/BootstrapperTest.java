package dev.polyhe.ckks.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.ckks.scheme.CkksContext;
import dev.polyhe.ckks.scheme.CkksPresets;
import dev.polyhe.ckks.scheme.SchemeParameters;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The CPU bootstrapping's own promises: level accounting, the documented out-of-range loss, refusals. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BootstrapperTest {
    private CkksContext ctx;
    private SecretKey sk;
    private Evaluator ev;

    @BeforeAll
    void open() {
        ctx = new CkksContext(CkksPresets.get("insecure-test-boot-N10"), 2);
        sk = ctx.generateSecretKey();
        ev = ctx.evaluator(ctx.generateEvaluationKeys(sk, Set.of(), false, true));
    }

    @AfterAll
    void close() {
        ctx.close();
    }

    /** n values uniform in [−1, 1) from {@code seed}. */
    private static double[] uniform(int n, long seed) {
        Random r = new Random(seed);
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = 2 * r.nextDouble() - 1;
        }
        return v;
    }

    private Ciphertext encrypt(double[] v, double scale) {
        return ctx.encryptor(sk)
                .encrypt(ctx.encoder().encode(v, ctx.parameters().slots(), 0, scale));
    }

    @Test
    void levelsAreAccountedStageByStage() {
        SchemeParameters p = ctx.schemeParameters();
        BootstrapParameters shape = BootstrapParameters.of(p);
        assertEquals(17, shape.modulusRange(), "h = 64: K = ceil(7·sqrt(65/12))");
        ChebyshevSine sine = ChebyshevSine.cheapest(shape.sineBound());
        assertEquals(
                8,
                sine.depth(),
                "EvalMod: Chebyshev series of degree " + sine.degree() + ", " + sine.doubleAngles() + " double angles");
        assertTrue(sine.even(), "the even form: fewer products at the same depth");
        assertTrue(sine.products() < new ChebyshevSine(shape.sineBound(), 2, false).products(), sine.products() + "");
        Bootstrapper b = new Bootstrapper(p, ctx.encoder(), null);
        assertEquals(14, b.levelsConsumed(), b.describe());
        assertEquals(3, b.outputLevel(), b.describe());
        Set<Integer> steps = Bootstrapper.rotationSteps(p);
        assertTrue(steps.size() < 64, "rotation keys for every slot count: " + steps.size());
    }

    @Test
    void aConstantBeyondTheRangeLosesExactlyTheDocumentedCubicTerm() {
        int slots = ctx.parameters().slots();
        double q0 = ctx.schemeParameters().q(0);
        double delta = ctx.parameters().scale();
        double m = 100;
        double[] v = new double[slots];
        java.util.Arrays.fill(v, m);
        double[] out = ctx.encoder().decode(ctx.decryptor(sk).decrypt(ev.bootstrap(encrypt(v, delta))));
        // a constant is one coefficient, on which EvalMod computes q_0/(2πΔ)·sin(2π·m·Δ/q_0)
        double predicted = q0 / (2 * Math.PI * delta) * Math.sin(2 * Math.PI * m * delta / q0);
        double loss = m * Bootstrapper.sineRelativeError(m, delta, q0);
        assertTrue(loss > 0x1p-9, "the loss is visible: " + loss);
        for (int i = 0; i < slots; i++) {
            assertEquals(predicted, out[i], 0x1p-17, "slot " + i);
            assertEquals(loss, m - out[i], 0.01 * loss, "slot " + i + ": the documented loss");
        }
    }

    /**
     * Evaluators of one context share its circuits (an engine per query builds them once), and each bootstraps with
     * its own keys: a second key set's ciphertexts come back right through the circuit the first one's evaluator
     * built.
     */
    @Test
    void evaluatorsOfOneContextShareTheCircuitEachWithItsOwnKeys() {
        int slots = ctx.parameters().slots();
        double[] v = uniform(slots, 5);
        SecretKey other = ctx.generateSecretKey();
        Evaluator otherEv = ctx.evaluator(ctx.generateEvaluationKeys(other, Set.of(), false, true));
        Evaluator again = ctx.evaluator(ctx.generateEvaluationKeys(sk, Set.of(), false, true));
        int built = -1;
        for (Object[] run : new Object[][] {{ev, sk}, {otherEv, other}, {again, sk}}) {
            SecretKey key = (SecretKey) run[1];
            Ciphertext in = ctx.encryptor(key)
                    .encrypt(ctx.encoder().encode(v, slots, 0, ctx.parameters().scale()));
            double[] out = ctx.encoder().decode(ctx.decryptor(key).decrypt(((Evaluator) run[0]).bootstrap(in)));
            for (int i = 0; i < slots; i++) {
                assertTrue(Math.abs(out[i] - v[i]) < 0x1p-14, "slot " + i + ": error " + Math.abs(out[i] - v[i]));
            }
            if (built < 0) {
                built = ctx.bootstrapCircuits().size();
            }
        }
        assertTrue(built >= 1, "the first evaluator built the full-slot circuit");
        assertEquals(built, ctx.bootstrapCircuits().size(), "the other two evaluators built none");
    }

    /**
     * Factors a power of two apart reuse SlotsToCoeffs' last group (an integer product on the ciphertext instead),
     * factors further apart than its spare bits encode it again: every result is the factor times the values, to
     * the bootstrap's precision relative to the factor.
     */
    @Test
    void factorsPowersOfTwoApartShareTheLastGroupAndKeepTheirPrecision() {
        int slots = ctx.parameters().slots();
        double[] v = uniform(slots, 11);
        Ciphertext in = encrypt(v, ctx.parameters().scale());
        int[] exponents = {0, -3, -12, -16, -2, -24, -30, 0, 1};
        for (int e : exponents) {
            double factor = Math.scalb(1.0, e);
            double[] out = ctx.encoder().decode(ctx.decryptor(sk).decrypt(ev.bootstrap(in, factor)));
            for (int i = 0; i < slots; i++) {
                double error = Math.abs(out[i] - factor * v[i]);
                assertTrue(
                        error < factor * 0x1p-14 + 0x1p-30,
                        "factor 2^" + e + ", slot " + i + ": " + out[i] + " for " + factor * v[i]);
            }
        }
    }

    @Test
    void aVectorBeyondTheRangeStaysWithinTheDocumentedBound() {
        int slots = ctx.parameters().slots();
        double q0 = ctx.schemeParameters().q(0);
        double delta = ctx.parameters().scale();
        double max = 128;
        double[] v = new double[slots];
        Random r = new Random(3);
        for (int i = 0; i < slots; i++) {
            v[i] = (2 * r.nextDouble() - 1) * max;
        }
        v[0] = max;
        double[] out = ctx.encoder().decode(ctx.decryptor(sk).decrypt(ev.bootstrap(encrypt(v, delta))));
        // the loss is cubic in the coefficients, whose cubes sum to at most max^3 in any slot (Parseval)
        double bound = max * Bootstrapper.sineRelativeError(max, delta, q0) + 0x1p-14;
        for (int i = 0; i < slots; i++) {
            assertTrue(Math.abs(out[i] - v[i]) <= bound, "input " + v[i] + ": error " + Math.abs(out[i] - v[i]));
        }
    }

    @Test
    void aScaleTooCloseToTheFirstPrimeIsRefused() {
        HeException e = assertThrows(HeException.class, () -> ev.bootstrap(encrypt(new double[] {0.5}, 0x1p50)));
        assertTrue(e.getMessage().contains("too close to q_0"), e.getMessage());
    }

    @Test
    void parametersWithoutTheLevelsAreRefusedAtKeyGeneration() {
        try (CkksContext small = new CkksContext(CkksPresets.get("insecure-test-N10"), 2)) {
            SecretKey s = small.generateSecretKey();
            HeException e =
                    assertThrows(HeException.class, () -> small.generateEvaluationKeys(s, Set.of(), false, true));
            assertTrue(e.getMessage().contains("bootstrapping consumes"), e.getMessage());
        }
    }

    @Test
    void aKeySetReloadedFromItsBlobStillBootstraps() throws java.io.IOException {
        EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Set.of(), false, true);
        java.io.ByteArrayOutputStream blob = new java.io.ByteArrayOutputStream();
        ctx.serializer().writeEvaluationKeys(keys, blob);
        EvaluationKeys reloaded =
                ctx.serializer().readEvaluationKeys(new java.io.ByteArrayInputStream(blob.toByteArray()));
        assertTrue(reloaded.hasBootstrapping(), "the capability travels with the keys (servers reload them)");
        double[] v = {0.75, -0.125};
        Ciphertext out =
                ctx.evaluator(reloaded).bootstrap(encrypt(v, ctx.parameters().scale()));
        double[] d = ctx.encoder().decode(ctx.decryptor(sk).decrypt(out));
        assertEquals(v[0], d[0], 0x1p-20);
        assertEquals(v[1], d[1], 0x1p-20);
    }

    @Test
    void aCiphertextAboveLevelZeroIsBootstrappedToo() {
        double[] v = {0.25, -0.5, 1, -1};
        Ciphertext c = ctx.encryptor(sk)
                .encrypt(ctx.encoder()
                        .encode(v, ctx.parameters().slots(), 3, ctx.parameters().scale()));
        double[] out = ctx.encoder().decode(ctx.decryptor(sk).decrypt(ev.bootstrap(c)));
        for (int i = 0; i < v.length; i++) {
            assertEquals(v[i], out[i], 0x1p-20);
        }
    }

    /**
     * Every sparse slot count: at 2 to 16 slots a transform's baby-step size can equal its slot count, where the giant
     * steps 0 and −n are one rotation and both sums must be kept.
     */
    @Test
    void everySparseSlotCountBootstraps() {
        for (int slots = 2; slots < ctx.parameters().slots(); slots <<= 1) {
            double[] v = uniform(slots, slots);
            Ciphertext c = ctx.encryptor(sk)
                    .encrypt(ctx.encoder().encode(v, slots, 0, ctx.parameters().scale()));
            double[] out = ctx.encoder().decode(ctx.decryptor(sk).decrypt(ev.bootstrap(c)));
            for (int i = 0; i < slots; i++) {
                assertEquals(v[i], out[i], 0x1p-14, slots + " slots, slot " + i);
            }
        }
    }
}
