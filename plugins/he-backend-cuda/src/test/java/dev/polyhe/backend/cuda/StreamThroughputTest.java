package dev.polyhe.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.polyhe.api.he.Availability;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.DeviceQueue;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.ckks.scheme.CkksContext;
import dev.polyhe.ckks.scheme.CkksPresets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * The device check's measure of ciphertexts in flight (plugins/he-backend-cuda/device-check.sh, step
 * {@code throughput}): k full-slot bootstraps of N16-boot-128 issued from k threads at once (k = 1, 2, 4), each with
 * its own ciphertext, on one stream (as before streams) and on four, timed to the device's end (medians). Keys are
 * generated once on the host. Prints one line per (streams, k), "bootstraps at once: ...", which the device check
 * copies into its summary. Skipped without a GPU; {@link EmulatedStreamThroughputTest} runs the same code on the
 * emulated device, small, so that it is known to work before a device machine runs it.
 */
class StreamThroughputTest {
    /** Where it runs: GPU 0, or nothing. */
    Availability availability() {
        return new CkksCudaBackend().availability();
    }

    CkksParameters parameters() {
        return CkksPresets.get(CkksPresets.BOOTSTRAPPING_128);
    }

    HeContext device(CkksParameters parameters, int streams) {
        return new CkksCudaBackend(Runtime.getRuntime().availableProcessors(), null, streams).open(parameters);
    }

    int[] threads() {
        return new int[] {1, 2, 4};
    }

    int[] streams() {
        return new int[] {1, 4};
    }

    int runs() {
        return Integer.getInteger("polyhe.cuda.throughput.runs", 3);
    }

    @Test
    void bootstrapsFromSeveralThreadsAtOnce() throws Exception {
        Availability a = availability();
        assumeTrue(a.available(), () -> "ckks-cuda cannot run here: " + a.reason());
        CkksParameters parameters = parameters();
        int slots = parameters.slots();
        int most = Arrays.stream(threads()).max().orElse(1);
        SecretKey sk;
        EvaluationKeys keys;
        try (HeContext host = new CkksContext(parameters, Runtime.getRuntime().availableProcessors())) {
            sk = host.generateSecretKey();
            keys = host.generateEvaluationKeys(sk, Set.of(), false, Set.of(slots));
        }
        List<String> lines = new ArrayList<>();
        for (int streams : streams()) {
            try (HeContext ctx = device(parameters, streams)) {
                Evaluator ev = ctx.evaluator(keys);
                List<Ciphertext> inputs = new ArrayList<>();
                for (int i = 0; i < most; i++) {
                    double[] x = new double[slots];
                    for (int s = 0; s < slots; s++) {
                        x[s] = Math.sin(s + i) / 2;
                    }
                    inputs.add(ev.dropToLevel(
                            ctx.encryptor(sk)
                                    .encrypt(ctx.encoder().encode(x, slots, parameters.maxLevel(), parameters.scale())),
                            0));
                }
                ev.bootstrap(inputs.get(0)); // the circuit's constants and the keys, uploaded once
                drain(ctx);
                double alone = Double.NaN;
                for (int k : threads()) {
                    double[] ms = new double[runs()];
                    for (int r = 0; r < ms.length; r++) {
                        ms[r] = atOnce(ctx, ev, inputs.subList(0, k));
                    }
                    Arrays.sort(ms);
                    double median = ms[ms.length / 2];
                    if (k == 1) {
                        alone = median;
                    }
                    String line = String.format(
                            Locale.ROOT,
                            "bootstraps at once: %d stream%s, %d thread%s: %.1f ms "
                                    + "median of %d, %.1f ms a bootstrap, %.2fx the throughput of one alone",
                            streams,
                            streams == 1 ? "" : "s",
                            k,
                            k == 1 ? "" : "s",
                            median,
                            ms.length,
                            median / k,
                            k * alone / median);
                    System.out.println(line);
                    lines.add(line);
                }
            }
        }
        assertEquals(streams().length * threads().length, lines.size());
    }

    /** k bootstraps from k threads that start together; the time until the device has done them, in ms. */
    private static double atOnce(HeContext ctx, Evaluator ev, List<Ciphertext> inputs) throws Exception {
        int k = inputs.size();
        CyclicBarrier start = new CyclicBarrier(k + 1);
        Throwable[] failed = new Throwable[1];
        List<Thread> threads = new ArrayList<>();
        for (Ciphertext in : inputs) {
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    ev.bootstrap(in);
                } catch (Exception | Error e) {
                    failed[0] = e;
                }
            });
            t.start();
            threads.add(t);
        }
        start.await();
        long t0 = System.nanoTime();
        for (Thread t : threads) {
            t.join();
        }
        drain(ctx);
        double ms = (System.nanoTime() - t0) / 1e6;
        assertTrue(failed[0] == null, () -> "a bootstrap failed: " + failed[0]);
        return ms;
    }

    private static void drain(HeContext ctx) {
        if (ctx instanceof DeviceQueue queue) {
            queue.drain();
        }
    }
}
