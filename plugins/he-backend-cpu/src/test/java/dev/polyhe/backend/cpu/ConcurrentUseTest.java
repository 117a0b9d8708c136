package dev.polyhe.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** One context and one evaluator shared by several application threads (the limb pool nested inside). */
class ConcurrentUseTest {
    @Test
    void oneEvaluatorServesSeveralThreads() throws Exception {
        CkksCpuBackend backend = new CkksCpuBackend(2);
        CkksParameters p = backend.preset("insecure-test-N10");
        try (HeContext ctx = backend.open(p)) {
            SecretKey sk = ctx.generateSecretKey();
            EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Set.of(1), false, false);
            Evaluator ev = ctx.evaluator(keys);
            ExecutorService app = Executors.newFixedThreadPool(4);
            try {
                List<Future<Double>> results = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    final int seed = t;
                    results.add(app.submit(() -> {
                        Random r = new Random(seed);
                        int slots = p.slots();
                        double[] x = new double[slots];
                        for (int i = 0; i < slots; i++) {
                            x[i] = 2 * r.nextDouble() - 1;
                        }
                        Ciphertext c =
                                ctx.encryptor(sk).encrypt(ctx.encoder().encode(x, slots, p.maxLevel(), p.scale()));
                        Ciphertext y = ev.rotate(ev.rescale(ev.multiply(c, c)), 1);
                        double[] out = ctx.encoder().decode(ctx.decryptor(sk).decrypt(y));
                        double max = 0;
                        for (int i = 0; i < slots; i++) {
                            double expected = x[(i + 1) % slots] * x[(i + 1) % slots];
                            max = Math.max(max, Math.abs(out[i] - expected));
                        }
                        return -Math.log(max) / Math.log(2);
                    }));
                }
                for (Future<Double> f : results) {
                    double bits = f.get();
                    assertTrue(bits > 15, "precision under concurrent use: " + bits + " bits");
                }
            } finally {
                app.shutdown();
            }
        }
    }
}
