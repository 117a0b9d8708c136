package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.core.PolyHe;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The bootstraps of a tensor's ciphertexts run at once where the evaluator gains from it (issue 17, item 3), and
 * the engine decides exactly what it decides one at a time: the same bootstraps, placed the same way, the same
 * accuracy.
 */
class ConcurrentRefreshTest {
    private static final int TOKENS = 6;
    private static final int SLOTS = 8;

    private record Outcome(Matrix values, List<Accounting.Placement> placements, long bootstraps, int mostAtOnce) {}

    /** Six columns (six ciphertexts) run down to level 1, then announced as the input of a 3-deep program. */
    private static Outcome run(HeContext ctx, EvaluationKeys keys, SecretKey sk, Matrix x, int concurrency) {
        WatchedEvaluator w = WatchedEvaluator.of(ctx.evaluator(keys), concurrency, m -> m.startsWith("bootstrap"));
        EncryptedEngine engine =
                new EncryptedEngine(ctx, w.evaluator(), keys, ctx.encryptor(sk), ctx.decryptor(sk), SLOTS);
        EncryptedTensor t = engine.fromPlain(x);
        double[] one = new double[x.data().length];
        java.util.Arrays.fill(one, 1);
        EncryptedTensor ones = engine.fromPlain(new Matrix(x.rows(), x.cols(), one));
        while (t.level() > 1) {
            t = engine.mul(t, ones);
        }
        EncryptedTensor refreshed = engine.reserve(t, 3, 1);
        assertTrue(refreshed.level() >= 3, "levels after reserve: " + refreshed.level());
        return new Outcome(
                engine.toPlain(refreshed),
                engine.accounting().placements(),
                engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L),
                w.mostAtOnce().get());
    }

    @Test
    void aTensorsBootstrapsRunAtOnceAndDecideAsOneAtATime() {
        try (PolyHe polyhe = PolyHe.builder().build()) {
            HeBackend backend = polyhe.plugins().backend("ckks-cpu").withParallelism(4);
            try (HeContext ctx = backend.open(backend.preset("insecure-test-boot-N10"))) {
                SecretKey sk = ctx.generateSecretKey();
                EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Packing.rotationSteps(SLOTS), false, true);
                assertEquals(4, ctx.evaluator(keys).concurrency(), "the CPU backend on four threads");
                double[] v = new double[TOKENS * 6];
                Random rnd = new Random(17);
                for (int i = 0; i < v.length; i++) {
                    v[i] = 2 * rnd.nextDouble() - 1;
                }
                Matrix x = new Matrix(TOKENS, 6, v);

                Outcome alone = run(ctx, keys, sk, x, 1);
                Outcome atOnce = run(ctx, keys, sk, x, 2);

                assertEquals(1, alone.mostAtOnce(), "concurrency 1: one bootstrap at a time");
                assertEquals(2, atOnce.mostAtOnce(), "concurrency 2: two pair bootstraps at once");
                assertEquals(3, atOnce.bootstraps(), "six ciphertexts, three pair bootstraps");
                assertEquals(alone.bootstraps(), atOnce.bootstraps());
                assertEquals(alone.placements(), atOnce.placements(), "the same decisions in the same order");
                for (Outcome o : List.of(alone, atOnce)) {
                    double err = 0;
                    for (int i = 0; i < v.length; i++) {
                        err = Math.max(err, Math.abs(o.values().data()[i] - v[i]));
                    }
                    assertTrue(err < 1e-3, "error after refresh: " + err);
                }
            }
        }
    }
}
