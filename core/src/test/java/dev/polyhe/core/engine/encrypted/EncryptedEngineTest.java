package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.Arith;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.PlainTensor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The encrypted engine over the shipped CPU backend on a small insecure ring: every operator agrees with the plain
 * engine. (A polynomial attention mechanism running unchanged on ciphertexts is the attention plugin's
 * EncryptedAttentionTest.)
 */
class EncryptedEngineTest {
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

    /** An engine with fresh keys for every rotation of {@code packing}. */
    static EncryptedEngine engineFor(Packing packing) {
        return engineFor(packing, false);
    }

    /** The same with keys that hold the conjugation ({@code RowShifts}: complex-packed row shifts) or not. */
    static EncryptedEngine engineFor(Packing packing, boolean conjugation) {
        SecretKey sk = context.generateSecretKey();
        EvaluationKeys keys = context.generateEvaluationKeys(sk, packing.rotationSteps(), conjugation, false);
        return new EncryptedEngine(
                context, context.evaluator(keys), keys, context.encryptor(sk), context.decryptor(sk), packing);
    }

    @Test
    void linearAgreesWithThePlainEngine() {
        Matrix x = random(TOKENS, 5, 1);
        Matrix w = random(3, 5, 1);
        double[] b = {0.5, -1, 0.25};
        PlainEngine plain = new PlainEngine();
        Matrix expected = plain.linear(plain.fromPlain(x), w, b).toMatrix();
        EncryptedTensor y = ckks.linear(ckks.fromPlain(x), w, b);
        assertTrue(maxAbsDiff(expected, ckks.toPlain(y)) < 1e-6);
        assertEquals(1, ckks.depth(y), "a plaintext-weight matmul costs one level");
    }

    @Test
    void attentionMatmulsAgreeWithThePlainEngine() {
        Matrix q = random(TOKENS, 4, 1);
        Matrix k = random(TOKENS, 4, 1);
        Matrix v = random(TOKENS, 4, 1);
        Matrix causal = new Matrix(TOKENS, TOKENS, new double[TOKENS * TOKENS]);
        for (int t = 0; t < TOKENS; t++) {
            for (int u = 0; u <= t; u++) {
                causal.data()[t * TOKENS + u] = 1;
            }
        }
        PlainEngine plain = new PlainEngine();
        PlainTensor ps = plain.mulPlain(plain.matmulTransposed(plain.fromPlain(q), plain.fromPlain(k)), causal);
        PlainTensor po = plain.matmul(plain.addConstant(ps, 0.5), plain.fromPlain(v));
        EncryptedTensor cs = ckks.mulPlain(ckks.matmulTransposed(ckks.fromPlain(q), ckks.fromPlain(k)), causal);
        assertEquals(Layout.DIAGONALS, cs.layout());
        assertTrue(maxAbsDiff(ps.toMatrix(), ckks.toPlain(cs)) < 1e-6);
        EncryptedTensor co = ckks.matmul(ckks.addConstant(cs, 0.5), ckks.fromPlain(v));
        assertTrue(maxAbsDiff(po.toMatrix(), ckks.toPlain(co)) < 1e-6, "padding keys must not leak into A·V");
        assertTrue(maxAbsDiff(plain.rowSums(ps).toMatrix(), ckks.toPlain(ckks.rowSums(cs))) < 1e-6);
    }

    @Test
    void scoresWithSeveralDiagonalsPerCiphertextAgreeWithThePlainEngine() {
        int d = 4;
        SecretKey sk = context.generateSecretKey();
        Packing packing = new Packing(SLOTS, 1, d);
        EvaluationKeys keys = context.generateEvaluationKeys(sk, packing.rotationSteps(), false, false);
        EncryptedEngine packed = new EncryptedEngine(
                context, context.evaluator(keys), keys, context.encryptor(sk), context.decryptor(sk), packing);
        Matrix s = random(TOKENS, TOKENS, 1);
        Matrix mask = random(TOKENS, TOKENS, 1);
        EncryptedTensor cs = packed.fromPlainScores(s);
        assertEquals(SLOTS / d, cs.ciphertexts().length, "P/D ciphertexts");
        assertEquals(d, cs.perCiphertext());
        assertTrue(maxAbsDiff(s, packed.toPlain(cs)) < 1e-6);
        PlainEngine plain = new PlainEngine();
        PlainTensor ps = plain.fromPlain(s);
        // padding entries of the unclean sum must not reach the row sums
        PlainTensor expected = plain.mul(plain.rowSums(plain.addConstant(plain.mulPlain(ps, mask), 0.5)), ps);
        EncryptedTensor actual = packed.mul(packed.rowSums(packed.addConstant(packed.mulPlain(cs, mask), 0.5)), cs);
        assertTrue(maxAbsDiff(expected.toMatrix(), packed.toPlain(actual)) < 1e-5);
        assertThrows(UnsupportedOperationException.class, () -> packed.matmul(cs, packed.fromPlain(s)));
        assertThrows(IllegalArgumentException.class, () -> packed.add(cs, ckks.fromPlainScores(s)));
        assertThrows(IllegalArgumentException.class, () -> new Packing(SLOTS, 1, 2 * SLOTS));
        assertThrows(
                IllegalArgumentException.class,
                () -> new EncryptedEngine(
                        context, context.evaluator(keys), keys, null, null, new Packing(SLOTS, 1024, 1)));
    }

    @Test
    void columnBlocksAgreeWithThePlainEngine() {
        Packing packing = new Packing(SLOTS, 4, 1);
        EncryptedEngine blocks = engineFor(packing);
        PlainEngine plain = new PlainEngine();
        Matrix x = random(TOKENS, 6, 1);
        EncryptedTensor cx = blocks.fromPlain(x);
        PlainTensor px = plain.fromPlain(x);
        assertEquals(Layout.BLOCKS, cx.layout());
        assertEquals(2, cx.ciphertexts().length, "6 columns in blocks of 4");
        assertTrue(maxAbsDiff(x, blocks.toPlain(cx)) < 1e-6);

        // blocks -> blocks by the diagonal method, with a zero block row and a bias
        Matrix w = random(10, 6, 1);
        for (int j = 0; j < 6; j++) {
            w.data()[4 * 6 + j] = 0;
        }
        double[] bias = random(1, 10, 1).data();
        long rescales = rescaleCount(blocks);
        EncryptedTensor y = blocks.linear(cx, w, bias);
        assertEquals(
                rescales,
                rescaleCount(blocks),
                "each output block's giant steps rotate before their one rescale, "
                        + "which their key switches' division makes (no rescale of its own)");
        assertEquals(Layout.BLOCKS, y.layout());
        assertTrue(maxAbsDiff(plain.linear(px, w, bias).toMatrix(), blocks.toPlain(y)) < 1e-5);
        assertEquals(1, blocks.depth(y), "a plaintext-weight matmul costs one level");

        // LayerNorm's row operations, the padding columns (10 of 12) included in nothing
        double[] g = random(1, 10, 2).data();
        PlainTensor py = plain.linear(px, w, bias);
        Matrix expected = plain.addRow(
                        plain.mulRow(plain.sub(plain.addConstant(py, 1), plain.rowMeans(plain.addConstant(py, 1))), g),
                        g)
                .toMatrix();
        EncryptedTensor shifted = blocks.addConstant(y, 1);
        Matrix actual =
                blocks.toPlain(blocks.addRow(blocks.mulRow(blocks.sub(shifted, blocks.rowMeans(shifted)), g), g));
        assertTrue(maxAbsDiff(expected, actual) < 1e-5);

        // head slicing unpacks to columns; columns feed a linear back into blocks; rows move
        EncryptedTensor head = blocks.columns(y, 3, 9);
        assertEquals(Layout.COLUMNS, head.layout());
        assertTrue(maxAbsDiff(plain.columns(py, 3, 9).toMatrix(), blocks.toPlain(head)) < 1e-5);
        Matrix w2 = random(5, 6, 1);
        EncryptedTensor z = blocks.linear(head, w2, null);
        assertEquals(Layout.BLOCKS, z.layout());
        assertTrue(maxAbsDiff(plain.linear(plain.columns(py, 3, 9), w2, null).toMatrix(), blocks.toPlain(z)) < 1e-5);
        assertTrue(maxAbsDiff(plain.rowRange(py, 2, 5).toMatrix(), blocks.toPlain(blocks.rowRange(y, 2, 5))) < 1e-5);

        // attention from blocks: Q·Kᵀ, then A·V, and blocks meeting columns element-wise
        EncryptedTensor scores = blocks.matmulTransposed(blocks.columns(cx, 0, 4), blocks.columns(cx, 2, 6));
        PlainTensor ps = plain.matmulTransposed(plain.columns(px, 0, 4), plain.columns(px, 2, 6));
        assertTrue(maxAbsDiff(ps.toMatrix(), blocks.toPlain(scores)) < 1e-5);
        EncryptedTensor context = blocks.matmul(scores, y);
        assertTrue(maxAbsDiff(plain.matmul(ps, py).toMatrix(), blocks.toPlain(context)) < 1e-4);
        EncryptedTensor mixed =
                blocks.add(y, blocks.concatColumns(List.of(blocks.columns(y, 5, 10), blocks.columns(y, 0, 5))));
        PlainTensor pmixed =
                plain.add(py, plain.concatColumns(List.of(plain.columns(py, 5, 10), plain.columns(py, 0, 5))));
        assertTrue(maxAbsDiff(pmixed.toMatrix(), blocks.toPlain(mixed)) < 1e-5);
    }

    private static long rescaleCount(EncryptedEngine engine) {
        return engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.RESCALE, 0L);
    }

    /**
     * All heads at once on column blocks: (B, heads, d) with two heads per block and a half-empty second block
     * (d < P), one head filling a block (d = B = P), and heads wider than P (d = 2P); with row shifts in two
     * rotations each, and complex-packed in one (keys with the conjugation).
     */
    @ParameterizedTest(name = "conjugation {0}")
    @ValueSource(booleans = {false, true})
    void headsOnColumnBlocksAgreeWithThePlainEngine(boolean conjugation) {
        for (int[] c : new int[][] {{8, 3, 4}, {8, 2, 8}, {16, 2, 16}, {32, 2, 8}}) {
            int b = c[0];
            int heads = c[1];
            int width = heads * c[2];
            Packing packing = new Packing(SLOTS, b, 1);
            EncryptedEngine blocks = engineFor(packing, conjugation);
            PlainEngine plain = new PlainEngine();
            Matrix q = random(TOKENS, width, 1);
            Matrix k = random(TOKENS, width, 1);
            Matrix v = random(TOKENS, width, 1);
            Matrix mask = random(heads * TOKENS, TOKENS, 1);
            String where = "B=" + b + ", " + heads + " heads of " + c[2];

            EncryptedTensor scores = blocks.headScores(blocks.fromPlain(q), blocks.fromPlain(k), heads);
            PlainTensor ps = plain.headScores(plain.fromPlain(q), plain.fromPlain(k), heads);
            assertEquals(Layout.HEAD_DIAGONALS, scores.layout(), where);
            assertEquals((width + b - 1) / b * SLOTS / Math.min(c[2], SLOTS), scores.ciphertexts().length, where);
            assertTrue(maxAbsDiff(ps.toMatrix(), blocks.toPlain(scores)) < 1e-5, where);

            // a masked, shifted (so padding is not zero) row sum, then the weights times V
            PlainTensor pw = plain.mul(plain.rowSums(plain.addConstant(plain.mulPlain(ps, mask), 0.5)), ps);
            EncryptedTensor cw =
                    blocks.mul(blocks.rowSums(blocks.addConstant(blocks.mulPlain(scores, mask), 0.5)), scores);
            assertTrue(maxAbsDiff(pw.toMatrix(), blocks.toPlain(cw)) < 1e-4, where);
            EncryptedTensor context = blocks.headContexts(blocks.addConstant(cw, 0.25), blocks.fromPlain(v), heads);
            assertEquals(Layout.BLOCKS, context.layout(), where);
            Matrix expected = plain.headContexts(plain.addConstant(pw, 0.25), plain.fromPlain(v), heads)
                    .toMatrix();
            assertTrue(maxAbsDiff(expected, blocks.toPlain(context)) < 1e-4, where);
        }
    }

    /**
     * Q·Kᵀ of a head of 16 on blocks of 16 columns (P = 8 rows, so E = 8 diagonals per chunk) gathers the head's
     * columns by moving whole ciphertexts: one product per segment move u (d + E − 1 = 23 of them), not a sum over
     * the head's 16 segments for each of the 8 diagonals (64 rotations and more, before). No product is rotated on
     * its own: a move's baby step (u mod 4 at 16 segments) rides on Q and on the shifted keys' source, and the
     * products of each giant step are summed with one relinearization a batch of baby steps, the giant steps' sums
     * rotated in one {@code Evaluator.rotateSumAndRescale}. It agrees with the plain engine.
     */
    @Test
    void scoresMoveWholeCiphertextsNotEverySegment() {
        Packing packing = new Packing(SLOTS, 16, 1);
        SecretKey sk = context.generateSecretKey();
        EvaluationKeys keys = context.generateEvaluationKeys(sk, packing.rotationSteps(), false, false);
        Evaluator real = context.evaluator(keys);
        Map<String, Integer> calls = new ConcurrentHashMap<>();
        Evaluator counting = (Evaluator) Proxy.newProxyInstance(
                Evaluator.class.getClassLoader(), new Class<?>[] {Evaluator.class}, (proxy, method, args) -> {
                    calls.merge(method.getName(), 1, Integer::sum);
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        EncryptedEngine blocks =
                new EncryptedEngine(context, counting, keys, context.encryptor(sk), context.decryptor(sk), packing);
        Matrix q = random(TOKENS, 16, 1);
        Matrix k = random(TOKENS, 16, 1);
        EncryptedTensor scores = blocks.headScores(blocks.fromPlain(q), blocks.fromPlain(k), 1);
        PlainEngine plain = new PlainEngine();
        PlainTensor ps = plain.headScores(plain.fromPlain(q), plain.fromPlain(k), 1);
        assertTrue(maxAbsDiff(ps.toMatrix(), blocks.toPlain(scores)) < 1e-5);
        int moves = 16 + SLOTS - 1;
        long products = blocks.accounting().operators().values().stream()
                .mapToLong(OperatorStats::ciphertextMultiplications)
                .sum();
        assertEquals(moves, products, calls.toString());
        assertEquals(0, calls.getOrDefault("multiplyAndRescale", 0), calls.toString());
        // u = −7 .. 15 modulo 16 segments: four giant steps (0, 4, 8, 12), all four baby steps in one batch
        assertEquals(4, calls.getOrDefault("multiplySum", 0), calls.toString());
        long rotations = blocks.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.ROTATION, 0L);
        // the skew's source, baby steps and giant step (1 + 2·3 + 1), the shifts' source and its moves by the baby
        // steps (1 + 2·3), Q's (3), the row shifts (two sources, SLOTS a pass each at most) and the giant steps (3)
        assertTrue(rotations <= 8 + 7 + 3 + 2 * SLOTS + 3, rotations + " rotations: " + calls);
    }

    /**
     * With the conjugation in the keys, a pass of row shifts rotates c + i·rot(c, −P) once a shift instead of c and
     * rot(c, −P) ({@code RowShifts}): Q·Kᵀ and A·V agree with the plain engine as closely, with at least P − 1
     * rotations fewer for each of their four passes (the skews and the shifted skews), the few conjugations that take
     * the real parts included.
     */
    @Test
    void complexPackedRowShiftsSaveARotationAShift() {
        Packing packing = new Packing(SLOTS, 16, 1);
        Matrix q = random(TOKENS, 32, 1);
        Matrix k = random(TOKENS, 32, 1);
        Matrix v = random(TOKENS, 32, 1);
        PlainEngine plain = new PlainEngine();
        PlainTensor ps = plain.headScores(plain.fromPlain(q), plain.fromPlain(k), 2);
        Matrix expected = plain.headContexts(ps, plain.fromPlain(v), 2).toMatrix();
        long[] rotations = new long[2];
        for (int run = 0; run < 2; run++) {
            EncryptedEngine blocks = engineFor(packing, run == 1);
            EncryptedTensor scores = blocks.headScores(blocks.fromPlain(q), blocks.fromPlain(k), 2);
            assertTrue(maxAbsDiff(ps.toMatrix(), blocks.toPlain(scores)) < 1e-5, "scores, run " + run);
            EncryptedTensor context = blocks.headContexts(scores, blocks.fromPlain(v), 2);
            assertTrue(maxAbsDiff(expected, blocks.toPlain(context)) < 1e-4, "contexts, run " + run);
            rotations[run] = blocks.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.ROTATION, 0L);
        }
        assertTrue(
                rotations[1] <= rotations[0] - 4 * (SLOTS - 1),
                rotations[1] + " rotations complex-packed against " + rotations[0]);
    }

    /**
     * Row sums of several head blocks share ciphertexts ({@code HeadPacking}'s sumBlocks): a division's steps on
     * them run on one ciphertext per pack, not one per block; they decrypt where the plain engine has them; and
     * where they meet scores or a plain matrix they are spread back first. Packs short of blocks (three blocks in
     * packs of two, and in one of four) fill their missing places.
     */
    @Test
    void rowSumsOfSeveralHeadBlocksShareCiphertexts() {
        // B, heads, head size, the ciphertexts the row sums take
        for (int[] c : new int[][] {{8, 12, 2, 2}, {8, 5, 4, 1}, {8, 4, 4, 1}}) {
            int heads = c[1];
            int width = heads * c[2];
            EncryptedEngine blocks = engineFor(new Packing(SLOTS, c[0], 1));
            PlainEngine plain = new PlainEngine();
            Matrix q = random(TOKENS, width, 1);
            Matrix k = random(TOKENS, width, 1);
            Matrix mask = random(heads * TOKENS, TOKENS, 1);
            String where = "B=" + c[0] + ", " + heads + " heads of " + c[2];
            EncryptedTensor scores = blocks.headScores(blocks.fromPlain(q), blocks.fromPlain(k), heads);
            PlainTensor ps = plain.headScores(plain.fromPlain(q), plain.fromPlain(k), heads);

            EncryptedTensor sums = blocks.rowSums(blocks.addConstant(blocks.mulPlain(scores, mask), 0.5));
            PlainTensor psums = plain.rowSums(plain.addConstant(plain.mulPlain(ps, mask), 0.5));
            assertEquals(c[3], distinct(sums), where);
            assertTrue(maxAbsDiff(psums.toMatrix(), blocks.toPlain(sums)) < 1e-5, where);
            everySegmentHoldsAHeadsSums(blocks, sums, psums.toMatrix(), heads, where);

            EncryptedTensor step = blocks.mul(blocks.addConstant(sums, 1), sums);
            PlainTensor pstep = plain.mul(plain.addConstant(psums, 1), psums);
            assertEquals(c[3], distinct(step), "a division's step stays packed: " + where);
            assertTrue(maxAbsDiff(pstep.toMatrix(), blocks.toPlain(step)) < 1e-4, where);

            EncryptedTensor weights = blocks.mul(step, scores);
            assertTrue(distinct(weights) > c[3], where);
            assertTrue(maxAbsDiff(plain.mul(pstep, ps).toMatrix(), blocks.toPlain(weights)) < 1e-4, where);
            assertTrue(
                    maxAbsDiff(plain.mulPlain(psums, mask).toMatrix(), blocks.toPlain(blocks.mulPlain(sums, mask)))
                            < 1e-4,
                    where);
        }
    }

    /**
     * What a division of packed row sums needs: every segment of every ciphertext holds some head's row sums (a
     * zero, or a mix of heads, would leave its domain), not only the segments the values are read from.
     */
    private static void everySegmentHoldsAHeadsSums(
            EncryptedEngine engine, EncryptedTensor sums, Matrix expected, int heads, String where) {
        for (Ciphertext ct : sums.ciphertexts()) {
            double[] slots = engine.decryptSlots(ct);
            for (int segment = 0; segment < slots.length / SLOTS; segment++) {
                boolean found = false;
                for (int h = 0; h < heads && !found; h++) {
                    boolean same = true;
                    for (int t = 0; t < TOKENS; t++) {
                        same &= Math.abs(slots[segment * SLOTS + t] - expected.get(h * TOKENS + t, 0)) < 1e-5;
                    }
                    found = same;
                }
                assertTrue(found, "segment " + segment + " holds no head's row sums: " + where);
            }
        }
    }

    private static int distinct(EncryptedTensor t) {
        java.util.Set<Object> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        seen.addAll(java.util.Arrays.asList(t.ciphertexts()));
        return seen.size();
    }

    @Test
    void columnPermutationsOnBlocksAgreeWithThePlainEngine() {
        Packing packing = new Packing(SLOTS, 4, 1);
        EncryptedEngine blocks = engineFor(packing);
        PlainEngine plain = new PlainEngine();
        Matrix x = random(TOKENS, 6, 1);
        int[] source = {5, 0, -1, 2, 3, 1, 4};
        Matrix w = random(TOKENS, source.length, 1);
        EncryptedTensor y = blocks.permuteColumns(blocks.fromPlain(x), source, w);
        assertEquals(Layout.BLOCKS, y.layout());
        assertEquals(1, blocks.depth(y), "one plaintext product");
        assertTrue(
                maxAbsDiff(plain.permuteColumns(plain.fromPlain(x), source, w).toMatrix(), blocks.toPlain(y)) < 1e-5);
        assertThrows(
                IllegalArgumentException.class,
                () -> blocks.permuteColumns(blocks.fromPlain(x), new int[] {6}, random(TOKENS, 1, 1)));
    }

    @Test
    void rowwiseOperationsAgreeWithThePlainEngine() {
        Matrix x = random(TOKENS, 4, 2);
        PlainEngine plain = new PlainEngine();
        PlainTensor px = plain.fromPlain(x);
        EncryptedTensor cx = ckks.fromPlain(x);
        double[] g = {1, 0.5, -2, 3};
        Matrix expected = plain.addRow(plain.mulRow(plain.sub(px, plain.rowMeans(px)), g), g)
                .toMatrix();
        Matrix actual = ckks.toPlain(ckks.addRow(ckks.mulRow(ckks.sub(cx, ckks.rowMeans(cx)), g), g));
        assertTrue(maxAbsDiff(expected, actual) < 1e-6);
        Matrix heads = ckks.toPlain(ckks.concatColumns(List.of(ckks.columns(cx, 2, 4), ckks.columns(cx, 0, 2))));
        Matrix plainHeads = plain.concatColumns(List.of(plain.columns(px, 2, 4), plain.columns(px, 0, 2)))
                .toMatrix();
        assertTrue(maxAbsDiff(plainHeads, heads) < 1e-6);
        assertTrue(maxAbsDiff(plain.rowRange(px, 2, 4).toMatrix(), ckks.toPlain(ckks.rowRange(cx, 2, 4))) < 1e-6);
    }

    /**
     * Bootstrapping's error is absolute: values far from 1 are scaled into (1/2, 1] first and back after (for free,
     * upward); and a program that asks for more precision than one bootstrap keeps gets two bootstraps for one.
     */
    @Test
    void bootstrapsScaleValuesAndRaisePrecisionOnDemand() {
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        try (HeContext ctx = backend.open(backend.preset("insecure-test-boot-dense-N10"))) {
            EncryptedEngine engine = bootstrappingEngine(ctx);
            Matrix ones = new Matrix(TOKENS, 1, filled(TOKENS, 1.0));
            // twelve products by 1: four bootstraps' worth of levels on this ring, the values unchanged
            java.util.function.UnaryOperator<EncryptedTensor> chain = x -> {
                EncryptedTensor y = x;
                for (int i = 0; i < 12; i++) {
                    y = engine.mul(y, engine.fromPlain(ones));
                }
                return y;
            };
            Matrix tiny = random(TOKENS, 1, 1e-4);
            double small = maxAbsDiff(tiny, engine.toPlain(chain.apply(engine.fromPlain(tiny))));
            assertTrue(small < 1e-4 * 0x1p-12, "scaled up before every bootstrap: " + small + " on values of 1e-4");
            Matrix half = random(TOKENS, 1, 0.5);
            double single = maxAbsDiff(half, engine.toPlain(chain.apply(engine.fromPlain(half))));
            assertTrue(engine.accounting().precisionRaises().isEmpty());
            double precise;
            try (var p = engine.precision(60)) {
                precise = maxAbsDiff(half, engine.toPlain(chain.apply(engine.fromPlain(half))));
            }
            var raised = engine.accounting().precisionRaises();
            assertTrue(!raised.isEmpty() && raised.values().iterator().next().askedBits() == 60, raised.toString());
            assertTrue(precise < single / 4, "two bootstraps for one: " + precise + " against " + single);
        }
    }

    /**
     * Two ciphertexts that run out of levels together share their precise bootstraps: two pair bootstraps where
     * four single ones would do, so raising precision at most doubles the bootstraps, and still buys precision.
     */
    @Test
    void preciseBootstrapsOfCiphertextsThatRunOutTogetherArePaired() {
        Matrix half = random(TOKENS, 2, 0.5);
        Matrix ones = new Matrix(TOKENS, 2, filled(2 * TOKENS, 1.0));
        PrecisionRuns runs = onceThenPrecisely(engine -> {
            EncryptedTensor y = engine.fromPlain(half);
            // two bootstraps or more on the ring's ten user levels
            for (int i = 0; i < 24; i++) {
                y = engine.mul(y, engine.fromPlain(ones));
            }
            return maxAbsDiff(half, engine.toPlain(y));
        });
        assertEquals(2 * runs.bootstraps()[0], runs.bootstraps()[1], "precise pairs: two pair bootstraps for one");
    }

    /**
     * Ciphertexts of one tensor that reach a refresh large only by their interval bounds (a residual stream after a
     * block: the bound far above the values) and cannot be scaled down (level 0) share one pair bootstrap: neither
     * finds a partner among the ciphertexts just spent, and each went alone.
     */
    @Test
    void ciphertextsLargeOnlyByTheirIntervalBoundsShareAPairBootstrap() {
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        try (HeContext ctx = backend.open(backend.preset("insecure-test-boot-dense-N10"))) {
            EncryptedEngine engine = bootstrappingEngine(ctx);
            // two nearly equal columns, and weights that take their difference: values below 0.1, an interval
            // bound of 50 (|w|·max|x| summed), as a residual stream's after a block
            double[] near = new double[2 * TOKENS];
            for (int r = 0; r < TOKENS; r++) {
                near[2 * r] = 0.5 * (2 * RND.nextDouble() - 1);
                near[2 * r + 1] = near[2 * r] + 0.002 * (2 * RND.nextDouble() - 1);
            }
            Matrix w = new Matrix(2, 2, new double[] {50, -50, -50, 50});
            PlainEngine plain = new PlainEngine();
            Matrix diff = plain.linear(plain.fromPlain(new Matrix(TOKENS, 2, near)), w, null)
                    .toMatrix();
            EncryptedTensor y = engine.linear(engine.fromPlain(new Matrix(TOKENS, 2, near)), w, null);
            assertEquals(2, distinct(y), "two ciphertexts");
            EncryptedTensor ones = engine.fromPlain(new Matrix(TOKENS, 2, filled(2 * TOKENS, 1.0)));
            while (y.level() > 0) {
                y = engine.mul(y, ones);
            }
            long before = bootstrapCalls(engine);
            EncryptedTensor half = engine.mulConstant(y, 0.5);
            assertEquals(1, bootstrapCalls(engine) - before, "one pair bootstrap for the two ciphertexts");
            Matrix expected = new Matrix(
                    TOKENS,
                    2,
                    java.util.Arrays.stream(diff.data()).map(v -> v / 2).toArray());
            assertTrue(maxAbsDiff(expected, engine.toPlain(half)) < 1e-3);
        }
    }

    private static long bootstrapCalls(EncryptedEngine engine) {
        return engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);
    }

    /**
     * Precise refreshes of ciphertexts of different magnitudes (a tenth apart: Goldschmidt's e and its product) still
     * share pair bootstraps, at the larger one's factor, and the smaller keeps more precision than one bootstrap
     * gives it.
     */
    @Test
    void preciseBootstrapsOfDifferentMagnitudesArePaired() {
        Matrix large = random(TOKENS, 1, 0.5);
        Matrix small = random(TOKENS, 1, 0.05);
        Matrix ones = new Matrix(TOKENS, 1, filled(TOKENS, 1.0));
        PrecisionRuns runs = onceThenPrecisely(engine -> {
            EncryptedTensor y = engine.fromPlain(large);
            EncryptedTensor z = engine.fromPlain(small);
            EncryptedTensor one = engine.fromPlain(ones);
            for (int i = 0; i < 24; i++) {
                y = engine.mul(y, one);
                z = engine.mul(z, one);
            }
            assertTrue(maxAbsDiff(large, engine.toPlain(y)) < 1e-3);
            return maxAbsDiff(small, engine.toPlain(z));
        });
        assertTrue(
                runs.bootstraps()[1] <= 2 * runs.bootstraps()[0],
                runs.bootstraps()[1] + " against " + runs.bootstraps()[0]);
    }

    /**
     * A ciphertext refreshed once for a step that asked for no more (Goldschmidt's first guess reads its denominator
     * so) is refreshed again, precisely, for a later step that asks for more than one bootstrap keeps: the copy at
     * hand is not precise enough to serve it. The copy still serves steps that ask for no more.
     */
    @Test
    void aCopyRefreshedOnceDoesNotServeAPreciseStep() {
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        try (HeContext ctx = backend.open(backend.preset("insecure-test-boot-dense-N10"))) {
            EncryptedEngine engine = bootstrappingEngine(ctx);
            Matrix half = random(TOKENS, 1, 0.5);
            EncryptedTensor one = engine.fromPlain(new Matrix(TOKENS, 1, filled(TOKENS, 1.0)));
            EncryptedTensor spent = engine.fromPlain(half);
            while (spent.level() > 0) {
                spent = engine.mul(spent, one);
            }
            java.util.function.LongSupplier calls =
                    () -> engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);
            double once = maxAbsDiff(half, engine.toPlain(engine.mul(spent, one)));
            assertEquals(1, calls.getAsLong(), "refreshed once");
            engine.mul(spent, one);
            assertEquals(1, calls.getAsLong(), "the copy serves a step asking for no more");
            double precise;
            try (var p = engine.precision(60)) {
                precise = maxAbsDiff(half, engine.toPlain(engine.mul(spent, one)));
                assertEquals(3, calls.getAsLong(), "refreshed again, by two bootstraps");
                engine.mul(spent, one);
                assertEquals(3, calls.getAsLong(), "the precise copy serves the next precise step");
            }
            assertTrue(precise < once / 4, "precision bought: " + precise + " against " + once);
        }
    }

    /** Errors and bootstrap calls of a chain run once, then with 60 bits asked. */
    private record PrecisionRuns(double[] errors, long[] bootstraps) {}

    /**
     * Runs {@code chain} (returning its error) on a bootstrapping ring, once as is and once with 60 bits of precision
     * asked, and checks what every precise refresh must show: the chain needed bootstraps, each two precise calls
     * refreshed two ciphertexts (they went as pairs), and the precision was bought.
     */
    private static PrecisionRuns onceThenPrecisely(java.util.function.ToDoubleFunction<EncryptedEngine> chain) {
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        try (HeContext ctx = backend.open(backend.preset("insecure-test-boot-dense-N10"))) {
            SecretKey sk = ctx.generateSecretKey();
            EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Packing.rotationSteps(SLOTS), false, true);
            double[] errors = new double[2];
            long[] bootstraps = new long[2];
            for (int run = 0; run < 2; run++) {
                EncryptedEngine engine = new EncryptedEngine(
                        ctx, ctx.evaluator(keys), keys, ctx.encryptor(sk), ctx.decryptor(sk), SLOTS);
                try (var p = engine.precision(run == 0 ? 0 : 60)) {
                    errors[run] = chain.applyAsDouble(engine);
                }
                bootstraps[run] = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);
                if (run == 1) {
                    var raised = engine.accounting()
                            .precisionRaises()
                            .values()
                            .iterator()
                            .next();
                    assertEquals(
                            bootstraps[1],
                            raised.ciphertexts(),
                            "each two pair bootstraps refresh two ciphertexts precisely: " + raised);
                }
            }
            assertTrue(bootstraps[0] >= 2, "the chain needs bootstraps: " + bootstraps[0]);
            assertTrue(errors[1] < errors[0] / 4, "precision bought: " + errors[1] + " against " + errors[0]);
            return new PrecisionRuns(errors, bootstraps);
        }
    }

    private static double[] filled(int n, double v) {
        double[] d = new double[n];
        java.util.Arrays.fill(d, v);
        return d;
    }

    @Test
    void theEngineBootstrapsByItselfWhenLevelsRunOut() {
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        try (HeContext ctx = backend.open(backend.preset("insecure-test-boot-N10"))) {
            EncryptedEngine engine = bootstrappingEngine(ctx);
            Matrix x = random(TOKENS, 2, 1);
            double[] one = new double[TOKENS * 2];
            java.util.Arrays.fill(one, 1);
            // Eight products by an encryption of ones: eight levels, where the chain leaves the model three.
            EncryptedTensor ones = engine.fromPlain(new Matrix(TOKENS, 2, one));
            EncryptedTensor t = engine.fromPlain(x);
            for (int i = 0; i < 8; i++) {
                t = engine.mul(t, ones);
            }
            double err = maxAbsDiff(x, engine.toPlain(t));
            assertTrue(err < 1e-4, "error after the engine's bootstraps: " + err);
            long bootstraps = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);
            assertTrue(bootstraps >= 2, "bootstraps placed by the engine: " + bootstraps);

            // A square refreshes its operand once, not once per factor: 8 squarings, 3 levels per bootstrap.
            EncryptedTensor one1 = engine.fromPlain(new Matrix(TOKENS, 1, java.util.Arrays.copyOf(one, TOKENS)));
            long before = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);
            EncryptedTensor p = one1;
            for (int i = 0; i < 8; i++) {
                p = engine.square(p);
            }
            assertTrue(
                    maxAbsDiff(new Matrix(TOKENS, 1, java.util.Arrays.copyOf(one, TOKENS)), engine.toPlain(p)) < 1e-3);
            long squares = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L) - before;
            assertTrue(squares <= 2, "bootstraps for 8 squarings: " + squares);

            // Two sequences that run out of levels together are refreshed by one bootstrap each time.
            Matrix half = new Matrix(TOKENS, 1, java.util.Arrays.copyOf(one, TOKENS));
            EncryptedTensor u = engine.fromPlain(half);
            EncryptedTensor v = engine.mulConstant(engine.fromPlain(half), -1);
            long start = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);
            for (int i = 0; i < 8; i++) {
                u = engine.square(u);
                v = engine.mul(v, engine.fromPlain(half));
            }
            long pairs = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L) - start;
            assertTrue(maxAbsDiff(half, engine.toPlain(u)) < 1e-3, "u = 1");
            assertTrue(maxAbsDiff(engine.toPlain(engine.mulConstant(v, -1)), half) < 1e-3, "v = -1");
            assertTrue(pairs <= 3, "bootstraps for two sequences of 8 products: " + pairs + " (4 or more one by one)");

            // A spent ciphertext used in several products is refreshed once.
            EncryptedTensor spent = engine.fromPlain(half);
            while (spent.level() > 0) {
                spent = engine.mul(spent, engine.fromPlain(half));
            }
            long first = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);
            for (int i = 0; i < 3; i++) {
                assertTrue(maxAbsDiff(half, engine.toPlain(engine.mul(spent, engine.fromPlain(half)))) < 1e-3);
            }
            long reused = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L) - first;
            assertEquals(1, reused, "bootstraps of one spent ciphertext used in three products");

            // Announced as the input of a 3-deep program, a nearly spent ciphertext is refreshed once, up front;
            // one with the levels already is left alone.
            EncryptedTensor low = engine.mul(engine.fromPlain(half), engine.fromPlain(half));
            while (low.level() > 1) {
                low = engine.mul(low, engine.fromPlain(half));
            }
            long before3 = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);
            EncryptedTensor reserved = engine.reserve(low, 3, 1);
            assertTrue(reserved.level() >= 3, "levels after reserve: " + reserved.level());
            assertTrue(maxAbsDiff(half, engine.toPlain(reserved)) < 1e-3);
            EncryptedTensor cube = engine.mul(engine.square(reserved), reserved);
            assertTrue(maxAbsDiff(half, engine.toPlain(cube)) < 1e-3);
            assertEquals(
                    1,
                    engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L) - before3,
                    "one bootstrap for a 2-deep program on a refreshed input");
            assertTrue(engine.reserve(reserved, 3, 1) == reserved, "enough levels: nothing to do");
            // Read back from a file, the engine knows nothing of its magnitude: the announced bound decides.
            EncryptedTensor unknown = roundTrip(ctx, low);
            assertTrue(
                    engine.reserve(unknown, 3, 1e6) == unknown,
                    "values too large to bootstrap safely: left to the " + "program");
            assertTrue(engine.reserve(unknown, 3, 1).level() >= 3, "small enough: refreshed");
        }
    }

    /** t written to a ciphertext file and read back: the same values, and no range the engine tracked. */
    private static EncryptedTensor roundTrip(HeContext ctx, EncryptedTensor t) {
        try {
            var out = new java.io.ByteArrayOutputStream();
            EncryptedTensorFormat.write(ctx, "ckks-cpu", SLOTS, java.util.Map.of(), java.util.Map.of("t", t), out);
            return EncryptedTensorFormat.read(ctx, "ckks-cpu", new java.io.ByteArrayInputStream(out.toByteArray()))
                    .tensors()
                    .get("t");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void nonPolynomialStepsAndExhaustedLevelsFailClearly() {
        EncryptedTensor x = ckks.fromPlain(random(TOKENS, 2, 1));
        var np = assertThrows(Arith.NotPolynomialException.class, () -> ckks.exact(x, "exp", Math::exp));
        assertTrue(np.getMessage().contains("'exp' is not a polynomial"), np.getMessage());
        EncryptedTensor y = x;
        for (int i = 0; i < 24; i++) {
            y = ckks.mul(y, x);
        }
        EncryptedTensor last = y;
        var e = assertThrows(HeException.class, () -> ckks.mul(last, last));
        assertTrue(e.getMessage().contains("out of levels"), e.getMessage());
    }

    /**
     * Constant and plaintext products land on Δ (issue 17), so terms off Δ by different primes (a polynomial's baby
     * steps) add after their coefficients at one scale: a linear combination costs one level, where aligning two
     * scales at one level would cost one more.
     */
    @Test
    void aLinearCombinationOfTermsOffDeltaCostsOneLevel() {
        Matrix x = random(TOKENS, 4, 1);
        Matrix ones = new Matrix(
                TOKENS,
                4,
                java.util.stream.DoubleStream.generate(() -> 1)
                        .limit(TOKENS * 4L)
                        .toArray());
        EncryptedTensor cx = ckks.fromPlain(x);
        EncryptedTensor a = ckks.mul(ckks.mul(cx, ckks.fromPlain(ones)), ckks.fromPlain(ones));
        EncryptedTensor squared = ckks.mul(cx, cx);
        EncryptedTensor b = ckks.mul(squared, squared); // Δ⁴/(q²q') against a's Δ³/(q·q')
        assertEquals(a.level(), b.level());
        assertTrue(
                Math.abs(a.scale() / b.scale() - 1) > 1e-9,
                "precondition: the terms differ in scale: " + a.scale() + ", " + b.scale());
        double[] half = {0.5, 0.5, 0.5, 0.5};

        EncryptedTensor sum =
                ckks.add(ckks.add(ckks.mulConstant(a, 0.3), ckks.mulConstant(b, -0.7)), ckks.mulRow(a, half));

        assertEquals(a.level() - 1, sum.level(), "one level for the combination");
        double delta = context.parameters().scale();
        for (var c : sum.ciphertexts()) {
            assertEquals(delta, c.scale(), 1e-12 * delta, "on Δ");
        }
        PlainEngine plain = new PlainEngine();
        PlainTensor px = plain.fromPlain(x);
        PlainTensor pb = plain.mul(plain.mul(px, px), plain.mul(px, px));
        Matrix want = plain.add(
                        plain.add(plain.mulConstant(px, 0.3), plain.mulConstant(pb, -0.7)), plain.mulRow(px, half))
                .toMatrix();
        assertTrue(maxAbsDiff(want, ckks.toPlain(sum)) < 1e-5, "0.3·x − 0.7·x⁴ + 0.5·x");
    }
}
