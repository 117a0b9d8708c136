package dev.polyhe.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.encrypted.EncryptedEngine;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.engine.encrypted.Packing;
import dev.polyhe.core.engine.encrypted.PrimitiveKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A polynomial attention mechanism of this plugin runs unchanged on ciphertexts: core's encrypted engine over the
 * shipped CPU backend on a small insecure ring, found as services as a host finds them. (The engine's own operators
 * are core's EncryptedEngineTest.)
 */
class EncryptedAttentionTest {
    static final int TOKENS = 6;
    static final int SLOTS = 8;
    static PolyHe polyhe;
    static HeContext context;
    static EncryptedEngine ckks;
    static final Random RND = new Random(5);

    @BeforeAll
    static void open() {
        polyhe = PolyHe.builder().build();
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        List<Integer> q = new ArrayList<>(List.of(50));
        q.addAll(Collections.nCopies(24, 40));
        context = backend.open(new CkksParameters(10, q, List.of(55, 55), 13, 40, 0, SecurityLevel.INSECURE_TEST));
        SecretKey sk = context.generateSecretKey();
        EvaluationKeys keys = context.generateEvaluationKeys(sk, Packing.rotationSteps(SLOTS), false, false);
        ckks = new EncryptedEngine(
                context, context.evaluator(keys), keys, context.encryptor(sk), context.decryptor(sk), SLOTS);
    }

    @AfterAll
    static void close() {
        context.close();
        polyhe.close();
    }

    static Matrix random(int rows, int cols, double spread) {
        double[] d = new double[rows * cols];
        for (int i = 0; i < d.length; i++) {
            d[i] = spread * (2 * RND.nextDouble() - 1);
        }
        return new Matrix(rows, cols, d);
    }

    static double maxAbsDiff(Matrix a, Matrix b) {
        assertEquals(a.rows(), b.rows());
        assertEquals(a.cols(), b.cols());
        double m = 0;
        for (int i = 0; i < a.data().length; i++) {
            m = Math.max(m, Math.abs(a.data()[i] - b.data()[i]));
        }
        return m;
    }

    /** An engine on {@code ctx} with fresh keys, bootstrapping keys included, for the plain slot rotations. */
    static EncryptedEngine bootstrappingEngine(HeContext ctx) {
        SecretKey sk = ctx.generateSecretKey();
        EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Packing.rotationSteps(SLOTS), false, true);
        return new EncryptedEngine(ctx, ctx.evaluator(keys), keys, ctx.encryptor(sk), ctx.decryptor(sk), SLOTS);
    }

    /** Unmasked, and causal: each row then divided by its own length (ε/L_t added as a plaintext, no level). */
    @ParameterizedTest(name = "causal {0}")
    @ValueSource(booleans = {false, true})
    void polynomialPowerSoftmaxRunsUnchangedOnCiphertexts(boolean causal) {
        AttentionKernel kernel = polyhe.plugins()
                .attention(PluginChoice.of("power-softmax-length-agnostic")
                        .withOption("iterations", 8)
                        .withOption("lo", 0.01)
                        .withOption("hi", causal ? 6 : 4));
        Matrix scores = random(TOKENS, TOKENS, 1.5);
        Matrix mask = causal ? causalMask() : null;
        PlainEngine plain = new PlainEngine();
        Matrix expected = kernel.normalize(plain, plain.fromPlain(scores), mask).toMatrix();
        // Scores enter as Q·Kᵀ would produce them: diagonal layout, via a rank-one product with ones.
        EncryptedTensor encScores = ckks.mulPlain(
                ckks.matmulTransposed(ckks.fromPlain(onesColumn()), ckks.fromPlain(onesColumn())), scores);
        Matrix actual = ckks.toPlain(kernel.normalize(ckks, encScores, mask));
        assertTrue(
                maxAbsDiff(expected, actual) < 1e-4,
                "encrypted vs plaintext polynomial attention: " + maxAbsDiff(expected, actual));
    }

    /**
     * PowerSoftmax's division from a Chebyshev first guess, encrypted on a bootstrapping ring with three levels per
     * bootstrap, so that the guess itself runs out of levels midway and its denominator is refreshed once for the
     * guess (at the guess's precision) and again, precisely, for e0 = 1 − d·y0: the weights agree with the plaintext
     * polynomial program's on a domain spanning κ = 4e4 (6 keys of scores up to 1.5), as plain Goldschmidt's do. (Three
     * levels are too few
     * for the guess to save bootstraps; at 128-bit's ten it does, see the launcher's BootstrapPlannerTest.)
     */
    @ParameterizedTest(name = "guess-degree {0}")
    @ValueSource(strings = {"0", "15"})
    void firstGuessDivisionAgreesWithPlaintextOnABootstrappingRing(String guess) {
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        Matrix scores = random(TOKENS, TOKENS, 1.5);
        AttentionKernel kernel = polyhe.plugins()
                .attention(PluginChoice.of("power-softmax")
                        .withOption("division", "goldschmidt")
                        .withOption("lo", 1e-3)
                        .withOption("hi", 40)
                        .withOption("iterations", 30)
                        .withOption("guess-degree", guess));
        assertEquals(!guess.equals("0"), kernel.describe().contains("guess-degree=" + guess), kernel.describe());
        PlainEngine plain = new PlainEngine();
        Matrix expected =
                kernel.normalize(plain, plain.fromPlain(scores), causalMask()).toMatrix();
        try (HeContext ctx = backend.open(backend.preset("insecure-test-boot-dense-N10"))) {
            EncryptedEngine engine = bootstrappingEngine(ctx);
            EncryptedTensor encScores = engine.mulPlain(
                    engine.matmulTransposed(engine.fromPlain(onesColumn()), engine.fromPlain(onesColumn())), scores);
            Matrix actual = engine.toPlain(kernel.normalize(engine, engine.bound(encScores, -1.5, 1.5), causalMask()));
            double error = maxAbsDiff(expected, actual);
            assertTrue(error < 1e-3, kernel.describe() + ": encrypted vs plaintext polynomial weights " + error);
            assertTrue(
                    engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L) > 0,
                    "it bootstrapped");
        }
    }

    static Matrix causalMask() {
        double[] d = new double[TOKENS * TOKENS];
        for (int r = 0; r < TOKENS; r++) {
            for (int c = 0; c <= r; c++) {
                d[r * TOKENS + c] = 1;
            }
        }
        return new Matrix(TOKENS, TOKENS, d);
    }

    static Matrix onesColumn() {
        double[] d = new double[TOKENS];
        java.util.Arrays.fill(d, 1);
        return new Matrix(TOKENS, 1, d);
    }
}
