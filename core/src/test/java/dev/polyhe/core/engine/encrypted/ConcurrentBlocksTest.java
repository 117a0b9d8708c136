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
import dev.polyhe.core.engine.PlainTensor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A linear map's output blocks, a column permutation's blocks, an attention's shifts and element-wise products run
 * as independent ciphertexts at once where the evaluator gains from it (issue 17, item 3), and the engine counts and
 * decides exactly what it does one at a time: the same primitives per operator, the same results, a breakdown that
 * adds up to no more than the time taken.
 */
class ConcurrentBlocksTest {
    private static final int TOKENS = 6;
    private static final int SLOTS = 8;

    private record Outcome(
            List<Matrix> values,
            Map<PrimitiveKind, Long> counts,
            Map<String, String> perOperator,
            long recordedNanos,
            long wallNanos,
            int mostAtOnce) {}

    private static final class Inputs {
        final Random rnd = new Random(23);
        final Matrix x = random(TOKENS, 6);
        final Matrix w = random(20, 6);
        final double[] bias = random(1, 20).data();
        final Matrix w2 = random(10, 6);
        final int[] source = {5, 0, -1, 2, 3, 1, 4, 7, 6, 9, 8, 11, 10};
        final Matrix mask = random(TOKENS, source.length);
        final Matrix q = random(TOKENS, 12);
        final Matrix k = random(TOKENS, 12);
        final Matrix v = random(TOKENS, 12);

        Matrix random(int rows, int cols) {
            double[] d = new double[rows * cols];
            for (int i = 0; i < d.length; i++) {
                d[i] = 2 * rnd.nextDouble() - 1;
            }
            return new Matrix(rows, cols, d);
        }
    }

    /**
     * Blocks of 4 columns: a linear map on blocks (5 output blocks), one into blocks from columns (3), a column
     * permutation (4), an element-wise square times a constant (5); then 3 heads of 4 on blocks of 8 columns (two
     * blocks), scores and contexts over 8 shifts.
     */
    private static Outcome run(HeContext ctx, Inputs in, int concurrency) {
        List<Matrix> values = new ArrayList<>();
        long t0 = System.nanoTime();
        Packing narrow = new Packing(SLOTS, 4, 1);
        SecretKey sk = ctx.generateSecretKey();
        EvaluationKeys keys = ctx.generateEvaluationKeys(sk, narrow.rotationSteps(), false, false);
        WatchedEvaluator w = WatchedEvaluator.of(ctx.evaluator(keys), concurrency, m -> true);
        EncryptedEngine blocks =
                new EncryptedEngine(ctx, w.evaluator(), keys, ctx.encryptor(sk), ctx.decryptor(sk), narrow);
        EncryptedTensor y = blocks.linear(blocks.fromPlain(in.x), in.w, in.bias);
        assertEquals(Layout.BLOCKS, y.layout());
        assertEquals(5, y.ciphertexts().length, "20 columns in blocks of 4");
        values.add(blocks.toPlain(y));
        EncryptedTensor z = blocks.linear(blocks.columns(y, 3, 9), in.w2, null);
        assertEquals(Layout.BLOCKS, z.layout());
        values.add(blocks.toPlain(z));
        values.add(blocks.toPlain(blocks.permuteColumns(y, in.source, in.mask)));
        values.add(blocks.toPlain(blocks.mulConstant(blocks.mul(y, y), 0.7)));

        Packing wide = new Packing(SLOTS, 8, 1);
        EvaluationKeys headKeys = ctx.generateEvaluationKeys(sk, wide.rotationSteps(), false, false);
        WatchedEvaluator hw = WatchedEvaluator.of(ctx.evaluator(headKeys), concurrency, m -> true);
        EncryptedEngine heads =
                new EncryptedEngine(ctx, hw.evaluator(), headKeys, ctx.encryptor(sk), ctx.decryptor(sk), wide);
        EncryptedTensor scores = heads.headScores(heads.fromPlain(in.q), heads.fromPlain(in.k), 3);
        assertEquals(Layout.HEAD_DIAGONALS, scores.layout());
        values.add(heads.toPlain(scores));
        values.add(heads.toPlain(heads.headContexts(heads.addConstant(scores, 0.25), heads.fromPlain(in.v), 3)));
        long wall = System.nanoTime() - t0;

        Map<PrimitiveKind, Long> counts = new LinkedHashMap<>();
        Map<String, String> perOperator = new LinkedHashMap<>();
        long recorded = 0;
        for (EncryptedEngine e : List.of(blocks, heads)) {
            e.accounting().countsByPrimitive().forEach((kind, n) -> counts.merge(kind, n, Long::sum));
            recorded += e.accounting().nanosByPrimitive().values().stream()
                    .mapToLong(Long::longValue)
                    .sum();
            for (Map.Entry<String, OperatorStats> op :
                    e.accounting().operators().entrySet()) {
                OperatorStats s = op.getValue();
                perOperator.put(
                        e.packingSlots() + "/" + op.getKey(),
                        s.rotations() + " rotations, "
                                + s.ciphertextMultiplications() + " ct·ct, " + s.plaintextMultiplications() + " ct·pt, "
                                + s.rescales() + " rescales, levels " + s.entryLevel() + ".." + s.lowestLevel());
            }
        }
        return new Outcome(
                values,
                counts,
                perOperator,
                recorded,
                wall,
                Math.max(w.mostAtOnce().get(), hw.mostAtOnce().get()));
    }

    private static List<Matrix> expected(Inputs in) {
        PlainEngine plain = new PlainEngine();
        PlainTensor y = plain.linear(plain.fromPlain(in.x), in.w, in.bias);
        PlainTensor scores = plain.headScores(plain.fromPlain(in.q), plain.fromPlain(in.k), 3);
        return List.of(
                y.toMatrix(),
                plain.linear(plain.columns(y, 3, 9), in.w2, null).toMatrix(),
                plain.permuteColumns(y, in.source, in.mask).toMatrix(),
                plain.mulConstant(plain.mul(y, y), 0.7).toMatrix(),
                scores.toMatrix(),
                plain.headContexts(plain.addConstant(scores, 0.25), plain.fromPlain(in.v), 3)
                        .toMatrix());
    }

    @Test
    void blocksAndShiftsRunAtOnceAndCountAsOneAtATime() {
        try (PolyHe polyhe = PolyHe.builder().build()) {
            HeBackend backend = polyhe.plugins().backend("ckks-cpu").withParallelism(4);
            List<Integer> q = new ArrayList<>(List.of(50));
            q.addAll(Collections.nCopies(16, 40));
            try (HeContext ctx =
                    backend.open(new CkksParameters(10, q, List.of(55, 55), 13, 40, 0, SecurityLevel.INSECURE_TEST))) {
                Inputs in = new Inputs();
                List<Matrix> expected = expected(in);
                Outcome alone = run(ctx, in, 1);
                Outcome atOnce = run(ctx, in, 4);

                assertEquals(1, alone.mostAtOnce(), "concurrency 1: one evaluator call at a time");
                assertTrue(
                        atOnce.mostAtOnce() >= 2, "concurrency 4: calls overlap, most at once " + atOnce.mostAtOnce());
                assertEquals(alone.counts(), atOnce.counts(), "the same primitives");
                assertEquals(
                        alone.perOperator(),
                        atOnce.perOperator(),
                        "the same work per operator, at the same " + "levels");
                for (Outcome o : List.of(alone, atOnce)) {
                    for (int i = 0; i < expected.size(); i++) {
                        double err = EncryptedEngineTest.maxAbsDiff(
                                expected.get(i), o.values().get(i));
                        assertTrue(err < 1e-4, "result " + i + " off by " + err);
                    }
                    assertTrue(
                            o.recordedNanos() <= o.wallNanos(),
                            "primitives recorded " + o.recordedNanos()
                                    + " ns in a run of " + o.wallNanos()
                                    + " ns: overlapping times are scaled to the wall clock");
                }
            }
        }
    }
}
