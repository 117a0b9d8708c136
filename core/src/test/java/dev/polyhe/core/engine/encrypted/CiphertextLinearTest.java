package dev.polyhe.core.engine.encrypted;

import static dev.polyhe.core.engine.encrypted.EncryptedEngineTest.maxAbsDiff;
import static dev.polyhe.core.engine.encrypted.EncryptedEngineTest.random;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.OperatorScope;
import dev.polyhe.api.arith.TensorOps;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Linear maps with encrypted weights ({@link CiphertextLinear}) on a small insecure ring: they agree with the plain
 * engine's x·Wᵀ for blocks wider and narrower than a column, with and without the conjugation key, and store each
 * weight once rather than once per token.
 */
class CiphertextLinearTest {
    static final int SLOTS = 8;
    static final int TOKENS = 6;
    static PolyHe polyhe;
    static HeContext context;

    @BeforeAll
    static void open() {
        polyhe = PolyHe.builder().build();
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        List<Integer> q = new ArrayList<>(List.of(50));
        q.addAll(Collections.nCopies(8, 40));
        context = backend.open(new CkksParameters(10, q, List.of(55, 55), 9, 40, 0, SecurityLevel.INSECURE_TEST));
    }

    @AfterAll
    static void close() {
        context.close();
        polyhe.close();
    }

    static EncryptedEngine engineFor(Packing packing, boolean conjugation) {
        SecretKey sk = context.generateSecretKey();
        EvaluationKeys keys = context.generateEvaluationKeys(sk, packing.rotationSteps(), conjugation, false);
        return new EncryptedEngine(
                context, context.evaluator(keys), keys, context.encryptor(sk), context.decryptor(sk), packing);
    }

    /**
     * Blocks of 16 columns (two ciphertexts a block: B = 2P) and of 4 (B &lt; P), ragged in both dimensions (20 inputs,
     * 18 outputs), with the complex-packed row shifts and with two rotations a shift.
     */
    @ParameterizedTest
    @CsvSource({"16, true, 8", "16, false, 8", "4, true, 25", "4, false, 25"})
    void agreesWithThePlainEngine(int columns, boolean conjugation, int ciphertexts) {
        EncryptedEngine engine = engineFor(new Packing(SLOTS, columns, 1), conjugation);
        Matrix x = random(TOKENS, 20, 1);
        Matrix w = random(18, 20, 0.5);
        PlainEngine plain = new PlainEngine();
        Matrix expected = plain.linear(plain.fromPlain(x), w, null).toMatrix();

        EncryptedWeights weights = engine.encryptWeights(w);
        assertEquals(
                ciphertexts,
                weights.ciphertexts().length,
                "every weight once: " + weights + " (the plaintext diagonals, one per column block and diagonal, are "
                        + (columns * SkewedWeights.blocks(18, columns) * SkewedWeights.blocks(20, columns)) + ")");
        EncryptedTensor cx = engine.fromPlain(x);
        EncryptedTensor y = engine.linear(cx, weights);
        assertEquals(Layout.BLOCKS, y.layout());
        assertEquals(18, y.cols());
        double err = maxAbsDiff(expected, engine.toPlain(y));
        assertTrue(err < 1e-4, "max |error| " + err);
        assertEquals(2, engine.depth(y), "the skew's mask and the product");
        // the padding rows stay zero: a row sum (LayerNorm) may add them without a mask
        for (var c : y.ciphertexts()) {
            double[] slots = engine.decryptSlots(c);
            for (int j = 0; j < columns; j++) {
                for (int t = TOKENS; t < SLOTS; t++) {
                    assertTrue(Math.abs(slots[j * SLOTS + t]) < 1e-4, "padding row " + t + ": " + slots[j * SLOTS + t]);
                }
            }
        }
    }

    /** Weights encrypted low (at the level their product runs at, plus one) still multiply, and weigh less. */
    @Test
    void weightsEncryptedAtALowLevelMultiply() {
        EncryptedEngine engine = engineFor(new Packing(SLOTS, 16, 1), true);
        Matrix x = random(TOKENS, 16, 1);
        Matrix w = random(16, 16, 0.5);
        PlainEngine plain = new PlainEngine();
        EncryptedWeights low = engine.encryptWeights(w, 2);
        assertEquals(2, low.level());
        EncryptedTensor y = engine.linear(engine.fromPlain(x), low);
        assertEquals(0, y.level(), "the product runs where the weights allow");
        double err = maxAbsDiff(plain.linear(plain.fromPlain(x), w, null).toMatrix(), engine.toPlain(y));
        assertTrue(err < 1e-3, "max |error| " + err);
    }

    /**
     * A matrix narrower than its block skips the diagonals that hold padding only (4 outputs, 4 inputs and 6 tokens
     * reach 12 of a 16-wide block's diagonals), and agrees all the same.
     */
    @Test
    void aNarrowMatrixShiftsOnlyTheDiagonalsItFills() {
        EncryptedEngine engine = engineFor(new Packing(SLOTS, 16, 1), true);
        PlainEngine plain = new PlainEngine();
        Matrix x = random(TOKENS, 4, 1);
        Matrix narrow = random(4, 4, 0.5);
        EncryptedTensor cx = engine.fromPlain(x);
        long before = rotations(engine);
        EncryptedTensor y = engine.linear(cx, engine.encryptWeights(narrow));
        long narrowRotations = rotations(engine) - before;
        double err = maxAbsDiff(plain.linear(plain.fromPlain(x), narrow, null).toMatrix(), engine.toPlain(y));
        assertTrue(err < 1e-4, "max |error| " + err);

        Matrix full = random(16, 16, 0.5);
        EncryptedTensor wide = engine.fromPlain(random(TOKENS, 16, 1));
        before = rotations(engine);
        engine.linear(wide, engine.encryptWeights(full));
        long fullRotations = rotations(engine) - before;
        assertTrue(
                narrowRotations < fullRotations - 3,
                "narrow " + narrowRotations + " rotations, a full block " + fullRotations);
    }

    private static long rotations(EncryptedEngine e) {
        return e.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.ROTATION, 0L);
    }

    @Test
    void badOperandsAreNamed() {
        EncryptedEngine engine = engineFor(new Packing(SLOTS, 16, 1), false);
        EncryptedTensor x = engine.fromPlain(random(TOKENS, 16, 1));
        IllegalArgumentException inputs = assertThrows(
                IllegalArgumentException.class, () -> engine.linear(x, engine.encryptWeights(random(4, 12, 1))));
        assertTrue(inputs.getMessage().contains("need 16 inputs"), inputs.getMessage());

        EncryptedEngine other = engineFor(new Packing(SLOTS, 4, 1), false);
        IllegalArgumentException packing = assertThrows(
                IllegalArgumentException.class, () -> engine.linear(x, other.encryptWeights(random(4, 16, 1))));
        assertTrue(
                packing.getMessage().contains("encrypt the weights with this key set's packing"), packing.getMessage());

        IllegalArgumentException level =
                assertThrows(IllegalArgumentException.class, () -> engine.encryptWeights(random(4, 16, 1), 1));
        assertTrue(level.getMessage().contains("two levels"), level.getMessage());

        EncryptedEngine columns = engineFor(Packing.columns(SLOTS), false);
        IllegalArgumentException blocks =
                assertThrows(IllegalArgumentException.class, () -> columns.encryptWeights(random(4, 16, 1)));
        assertTrue(blocks.getMessage().contains("--max-columns"), blocks.getMessage());
    }

    /** A two-map block with a LayerNorm-like gain and bias, written once against TensorOps. */
    static <M> M block(TensorOps<M> ops, M x, Matrix w1, double[] b1, double[] gain, double[] shift, Matrix w2) {
        try (OperatorScope s = ops.operator("layers.0.mlp")) {
            M h = ops.linear(x, w1, b1);
            h = ops.addRow(ops.mulRow(h, gain), shift);
            return ops.linear(h, w2, null);
        }
    }

    /**
     * The owner records the parameters of a run in the clear and encrypts them; a server's engine given them runs the
     * same model code with every weight replaced by its magnitude and agrees with the plain engine on the real ones.
     */
    @Test
    void aModelRunsOnItsOwnersEncryptedParametersNotOnTheValuesItPasses() {
        Packing packing = new Packing(SLOTS, 16, 1);
        SecretKey sk = context.generateSecretKey();
        EvaluationKeys keys = context.generateEvaluationKeys(sk, packing.rotationSteps(), true, false);
        EncryptedEngine owner = new EncryptedEngine(
                context, context.evaluator(keys), keys, context.encryptor(sk), context.decryptor(sk), packing);
        Matrix x = random(TOKENS, 20, 1);
        Matrix w1 = random(24, 20, 0.3);
        double[] b1 = random(1, 24, 0.5).data();
        double[] gain = random(1, 24, 1).data();
        double[] shift = random(1, 24, 0.5).data();
        Matrix w2 = random(10, 24, 0.3);
        PlainEngine plain = new PlainEngine();
        Matrix expected =
                block(plain, plain.fromPlain(x), w1, b1, gain, shift, w2).toMatrix();

        RecordedParameters recorded = new RecordedParameters();
        owner.recordParameters(recorded);
        block(owner, owner.fromPlain(x), w1, b1, gain, shift, w2);
        owner.recordParameters(null);
        assertEquals(4, recorded.size(), "two linear maps, mulRow and addRow");
        List<String> done = new ArrayList<>();
        EncryptedParameters encrypted =
                recorded.encrypt(owner, owner.fromPlain(x).level(), (site, n, total) -> done.add(site));
        assertEquals(List.of("layers.0.mlp#0", "layers.0.mlp#1", "layers.0.mlp#mulRow0", "layers.0.mlp#addRow0"), done);

        EncryptedEngine server = new EncryptedEngine(context, context.evaluator(keys), keys, null, null, packing);
        server.useParameters(encrypted);
        EncryptedTensor y = block(
                server,
                owner.fromPlain(x),
                constant(24, 20, 0.3),
                constant(1, 24, 0.5).data(),
                constant(1, 24, 1).data(),
                constant(1, 24, 0.5).data(),
                constant(10, 24, 0.3));
        double err = maxAbsDiff(expected, owner.toPlain(y));
        assertTrue(err < 1e-3, "max |error| " + err);

        // each parameter at the level the run consumed it at: fewer limbs, the same answer
        java.util.Map<String, Integer> levels = new java.util.HashMap<>();
        EncryptedEngine observed = new EncryptedEngine(context, context.evaluator(keys), keys, null, null, packing);
        observed.useParameters(encrypted);
        observed.observeLevels(levels);
        block(observed, owner.fromPlain(x), w1, b1, gain, shift, w2);
        assertEquals(
                java.util.Set.of(
                        "layers.0.mlp#0",
                        "layers.0.mlp#0#bias",
                        "layers.0.mlp#1",
                        "layers.0.mlp#mulRow0",
                        "layers.0.mlp#addRow0"),
                levels.keySet());
        int top = owner.fromPlain(x).level();
        assertTrue(levels.get("layers.0.mlp#1") < levels.get("layers.0.mlp#0"), levels.toString());
        EncryptedParameters exact = recorded.encrypt(owner, levels::get, (site, n, total) -> {});
        assertEquals(
                levels.get("layers.0.mlp#1"),
                exact.linear().get("layers.0.mlp#1").weight().level());
        assertEquals(top, exact.linear().get("layers.0.mlp#0").weight().level());
        EncryptedEngine low = new EncryptedEngine(context, context.evaluator(keys), keys, null, null, packing);
        low.useParameters(exact);
        EncryptedTensor yLow = block(low, owner.fromPlain(x), w1, b1, gain, shift, w2);
        double errLow = maxAbsDiff(expected, owner.toPlain(yLow));
        assertTrue(errLow < 1e-3, "max |error| at the levels of use " + errLow);
        assertEquals(y.level(), yLow.level(), "no level lost");

        EncryptedEngine second = new EncryptedEngine(context, context.evaluator(keys), keys, null, null, packing);
        second.useParameters(encrypted);
        IllegalStateException missing = assertThrows(IllegalStateException.class, () -> {
            try (OperatorScope s = second.operator("layers.1.mlp")) {
                second.linear(owner.fromPlain(x), w1, b1);
            }
        });
        assertTrue(missing.getMessage().contains("no linear map for layers.1.mlp#0"), missing.getMessage());
    }

    static Matrix constant(int rows, int cols, double value) {
        double[] d = new double[rows * cols];
        java.util.Arrays.fill(d, value);
        return new Matrix(rows, cols, d);
    }
}
