package dev.polyhe.core.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.Decryptor;
import dev.polyhe.api.he.DeviceQueue;
import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.Encryptor;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.api.he.PublicKey;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SingleLimbNtt;
import dev.polyhe.core.engine.encrypted.EncryptedEngine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Backend-agnostic CKKS benchmark over the HE API only: median milliseconds per operation on fresh ciphertexts at the
 * top level a user computes at (below a bootstrapping chain's circuit primes) with full slots (after warm-up runs),
 * precision in bits against double arithmetic, key sizes
 * and peak memory. The NTT is timed only when the context offers {@link SingleLimbNtt}.
 */
public final class CkksBenchmark {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static final int[] HOISTED_STEPS = {1, 2, 3, 4, 5, 6, 7, 8};

    private final HeBackend backend;
    private final CkksParameters parameters;
    private final int runs;
    private final int warmup;
    private final int threads;
    private final boolean bootstrap;
    /** Waits for a device backend's queued work after each timed operation (nothing on the host's). */
    private Runnable drain = () -> {};

    public CkksBenchmark(HeBackend backend, CkksParameters parameters, int runs, int warmup, int threads) {
        this(backend, parameters, runs, warmup, threads, false);
    }

    /** @param bootstrap also generate bootstrapping keys and time {@code bootstrap} of a level-0 ciphertext */
    public CkksBenchmark(
            HeBackend backend, CkksParameters parameters, int runs, int warmup, int threads, boolean bootstrap) {
        if (runs < 1) {
            throw new IllegalArgumentException("runs = " + runs + "; at least 1 is needed");
        }
        this.backend = backend;
        this.parameters = parameters;
        this.runs = runs;
        this.warmup = Math.max(0, warmup);
        this.threads = threads;
        this.bootstrap = bootstrap;
    }

    /**
     * One operation's timings: wall-clock median, and the median CPU time of the calling thread (equal to the
     * wall time on an idle machine with one thread; on a shared, loaded machine it leaves out the time the
     * thread waited for a core, but also misses work done by pool threads when threads &gt; 1).
     */
    public record Timing(double medianMs, int runs, double medianCpuMs) {}

    /**
     * What a bootstrap leaves: levels, precision in bits (mean over slots of −log2|error|, and the worst slot),
     * the size of all evaluation keys it needs (MiB) and the seconds their generation took, and the slots it refreshed.
     */
    public record Bootstrap(
            int levelsLeft,
            double precisionBitsMean,
            double precisionBitsMin,
            double keyMib,
            int slots,
            double keygenSeconds) {}

    /** Everything measured, in the order of the JSON form. Sizes in MiB (2^20 bytes). */
    public record Result(
            String backend,
            String device,
            int logN,
            int levels,
            int opsLevel,
            int threads,
            Map<String, Timing> ops,
            Map<String, Double> precisionBits,
            double relinKeyMib,
            double rotationKeyMib,
            double keygenRelinMs,
            double peakRssMib,
            Bootstrap bootstrap) {

        /**
         * backend, device (where it computes: threads, or the GPU and its driver), logN, levels, ops_level (the level
         * the operations were timed at), threads (in force),
         * ops (median_ms, runs, median_cpu_ms), precision_bits, key_mib,
         * keygen_relin_ms, peak_rss_mib, bootstrap. A value that is not a number (no such figure) is null.
         */
        public ObjectNode toJson(ObjectMapper mapper) {
            ObjectNode root = mapper.createObjectNode();
            root.put("backend", backend);
            root.put("device", device);
            root.put("logN", logN);
            root.put("levels", levels);
            root.put("ops_level", opsLevel);
            root.put("threads", threads);
            ObjectNode o = root.putObject("ops");
            ops.forEach((name, t) -> {
                ObjectNode n = o.putObject(name);
                number(n, "median_ms", t.medianMs());
                n.put("runs", t.runs());
                number(n, "median_cpu_ms", t.medianCpuMs());
            });
            ObjectNode p = root.putObject("precision_bits");
            precisionBits.forEach((k, v) -> number(p, k, v));
            ObjectNode keys = root.putObject("key_mib");
            number(keys, "relin", relinKeyMib);
            number(keys, "rotation", rotationKeyMib);
            number(root, "keygen_relin_ms", keygenRelinMs);
            number(root, "peak_rss_mib", peakRssMib);
            if (bootstrap != null) {
                ObjectNode bn = root.putObject("bootstrap");
                bn.put("levels_left", bootstrap.levelsLeft());
                number(bn, "precision_bits_mean", bootstrap.precisionBitsMean());
                number(bn, "precision_bits_min", bootstrap.precisionBitsMin());
                number(bn, "key_mib", bootstrap.keyMib());
                bn.put("slots", bootstrap.slots());
                number(bn, "keygen_s", bootstrap.keygenSeconds());
            }
            return root;
        }

        private static void number(ObjectNode n, String key, double v) {
            if (Double.isFinite(v)) {
                n.put(key, v);
            } else {
                n.putNull(key);
            }
        }

        /** A human-readable table. */
        public String toTable() {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format(
                    Locale.ROOT,
                    "%s on %s  N=2^%d  levels=%d  threads=%d  (operations at level %d)%n",
                    backend,
                    device,
                    logN,
                    levels,
                    threads,
                    opsLevel));
            for (Map.Entry<String, Timing> e : ops.entrySet()) {
                sb.append(String.format(
                        Locale.ROOT,
                        "  %-18s %10.3f ms  (median of %d; caller CPU %.3f ms)%n",
                        e.getKey(),
                        e.getValue().medianMs(),
                        e.getValue().runs(),
                        e.getValue().medianCpuMs()));
            }
            for (Map.Entry<String, Double> e : precisionBits.entrySet()) {
                sb.append(String.format(Locale.ROOT, "  precision %-8s %6.2f bits%n", e.getKey(), e.getValue()));
            }
            sb.append(String.format(
                    Locale.ROOT,
                    "  keys: relin %.1f MiB, rotation %.1f MiB; relin keygen %.0f ms; " + "peak RSS %.0f MiB%n",
                    relinKeyMib,
                    rotationKeyMib,
                    keygenRelinMs,
                    peakRssMib));
            if (bootstrap != null) {
                sb.append(String.format(
                        Locale.ROOT,
                        "  bootstrap: %d slots, %d levels left, precision %.2f bits mean, "
                                + "%.2f worst slot; keys %.0f MiB generated in %.1f s%n",
                        bootstrap.slots(),
                        bootstrap.levelsLeft(),
                        bootstrap.precisionBitsMean(),
                        bootstrap.precisionBitsMin(),
                        bootstrap.keyMib(),
                        bootstrap.keygenSeconds()));
                Timing one = ops.get("bootstrap");
                Timing two = ops.get("bootstrap_2_at_once");
                if (one != null && two != null) {
                    sb.append(String.format(
                            Locale.ROOT,
                            "  two bootstraps at once: %.0f ms, %.2fx the throughput of " + "one at a time%n",
                            two.medianMs(),
                            2 * one.medianMs() / two.medianMs()));
                }
            }
            return sb.toString();
        }
    }

    public Result run() {
        Map<String, Timing> ops = new LinkedHashMap<>();
        Map<String, Double> precision = new LinkedHashMap<>();
        try (HeContext ctx = backend.open(parameters)) {
            // a device backend returns before its work is done: each timed operation waits for it
            drain = ctx instanceof DeviceQueue queue ? queue::drain : () -> {};
            int slots = parameters.slots();
            int top = parameters.maxLevel();
            double scale = parameters.scale();
            Random random = new Random(42);
            double[] x = new double[slots];
            double[] y = new double[slots];
            for (int i = 0; i < slots; i++) {
                x[i] = 2 * random.nextDouble() - 1;
                y[i] = 2 * random.nextDouble() - 1;
            }
            dev.polyhe.core.encrypted.EncryptedInference.requireHeap(
                    ctx.evaluationKeyBytes(
                            Set.of(1, 2, 3, 4, 5, 6, 7, 8), bootstrap, bootstrap ? Set.of(slots) : Set.of()),
                    Runtime.getRuntime().maxMemory());
            SecretKey sk = ctx.generateSecretKey();
            PublicKey pk = ctx.generatePublicKey(sk);
            long t0 = System.nanoTime();
            ctx.generateEvaluationKeys(sk, Set.of(), false, false);
            double keygenRelinMs = (System.nanoTime() - t0) / 1e6;
            // bootstrapping keys for the full-slot ciphertexts measured here only: every slot count's would weigh
            // three times as much on large rings
            long k0 = System.nanoTime();
            EvaluationKeys keys = ctx.generateEvaluationKeys(
                    sk, Set.of(1, 2, 3, 4, 5, 6, 7, 8), bootstrap, bootstrap ? Set.of(slots) : Set.of());
            double keygenSeconds = (System.nanoTime() - k0) / 1e9;
            Encoder encoder = ctx.encoder();
            Encryptor encryptor = ctx.encryptor(pk);
            Decryptor decryptor = ctx.decryptor(sk);
            Evaluator ev = ctx.evaluator(keys);

            // a bootstrapping chain's top primes belong to the circuit: the other operations are measured where a
            // user computes, at the level a bootstrap leaves (this first bootstrap also builds its constants), or
            // without bootstrapping keys at the top prime of the scale's size (a product at a circuit prime of 60
            // bits would rescale Δ² to 2^20 and report 4 bits of precision no run ever sees)
            int level = bootstrap
                    ? ev.bootstrap(ev.dropToLevel(encryptor.encrypt(encoder.encode(x, slots, top, scale)), 0))
                            .level()
                    : EncryptedEngine.topLevel(parameters);
            if (ctx instanceof SingleLimbNtt probe) {
                ops.put("ntt", time(probe.nttOfOneLimb()::run));
            }
            Plaintext px = encoder.encode(x, slots, level, scale);
            Plaintext py = encoder.encode(y, slots, level, scale);
            ops.put("encode", time(() -> encoder.encode(x, slots, level, scale)));
            ops.put("encrypt", time(() -> encryptor.encrypt(px)));
            Ciphertext cx = encryptor.encrypt(px);
            Ciphertext cy = encryptor.encrypt(py);
            ops.put("decrypt", time(() -> encoder.decode(decryptor.decrypt(cx))));
            ops.put("add", time(() -> ev.add(cx, cy)));
            ops.put("mul_plain", time(() -> ev.multiplyPlain(cx, py)));
            Ciphertext plainProduct = ev.multiplyPlain(cy, px);
            // a product added to a sum of products in one call (a matrix row's step): beside mul_plain and add
            ops.put("mul_plain_add", time(() -> ev.multiplyPlainAndAdd(plainProduct, cx, py)));
            ops.put("mul_relin", time(() -> ev.multiply(cx, cy)));
            Ciphertext prod = ev.multiply(cx, cy);
            ops.put("rescale", time(() -> ev.rescale(prod)));
            // the two above fused (one division by the special primes and the last prime): beside their sum
            ops.put("mul_relin_rescale", time(() -> ev.multiplyAndRescale(cx, cy)));
            ops.put("rotate", time(() -> ev.rotate(cx, 1)));
            ops.put("rotate_hoisted_8", time(() -> ev.rotateHoisted(cx, HOISTED_STEPS)));

            double[] xy = new double[slots];
            double[] rot = new double[slots];
            for (int i = 0; i < slots; i++) {
                xy[i] = x[i] * y[i];
                rot[i] = x[(i + 1) % slots];
            }
            precision.put("encode", bits(x, encoder.decode(px)));
            precision.put("encrypt", bits(x, encoder.decode(decryptor.decrypt(cx))));
            precision.put("mul_relin", bits(xy, encoder.decode(decryptor.decrypt(ev.rescale(prod)))));
            precision.put(
                    "mul_relin_rescale", bits(xy, encoder.decode(decryptor.decrypt(ev.multiplyAndRescale(cx, cy)))));
            precision.put(
                    "mul_plain", bits(xy, encoder.decode(decryptor.decrypt(ev.rescale(ev.multiplyPlain(cx, py))))));
            precision.put("rotate", bits(rot, encoder.decode(decryptor.decrypt(ev.rotate(cx, 1)))));
            double mb = 1024.0 * 1024.0;
            Bootstrap boot = null;
            if (bootstrap) {
                Ciphertext bottom = ev.dropToLevel(cx, 0);
                ops.put("bootstrap", time(() -> ev.bootstrap(bottom)));
                // what parallelism across ciphertexts could give beside the limbs' (issue 17): two independent
                // ciphertexts bootstrapped from two threads on the same context and thread pool
                Ciphertext other = ev.dropToLevel(cy, 0);
                ops.put(
                        "bootstrap_2_at_once",
                        time(() -> twoAtOnce(() -> ev.bootstrap(bottom), () -> ev.bootstrap(other))));
                Ciphertext[] both = twoAtOnce(() -> ev.bootstrap(bottom), () -> ev.bootstrap(other));
                precision.put(
                        "bootstrap_2_at_once",
                        Math.min(
                                bits(x, encoder.decode(decryptor.decrypt(both[0]))),
                                bits(y, encoder.decode(decryptor.decrypt(both[1])))));
                Ciphertext refreshed = ev.bootstrap(bottom);
                double[] back = encoder.decode(decryptor.decrypt(refreshed));
                precision.put("bootstrap", bits(x, back));
                boot = new Bootstrap(
                        refreshed.level(),
                        meanBits(x, back),
                        bits(x, back),
                        (keys.relinearizationKeyBytes() + keys.rotationKeyBytes()) / mb,
                        slots,
                        keygenSeconds);
            }
            return new Result(
                    backend.name(),
                    ctx.device(),
                    parameters.logN(),
                    top,
                    level,
                    threads,
                    ops,
                    precision,
                    keys.relinearizationKeyBytes() / mb,
                    keys.rotationKeyBytes() / mb,
                    keygenRelinMs,
                    peakRssMib(),
                    boot);
        }
    }

    /** Runs both at once, on this thread and one more, and returns both results. */
    private static Ciphertext[] twoAtOnce(Supplier<Ciphertext> a, Supplier<Ciphertext> b) {
        var other = java.util.concurrent.CompletableFuture.supplyAsync(b, r -> {
            Thread t = new Thread(r, "bench-second");
            t.setDaemon(true);
            t.start();
        });
        return new Ciphertext[] {a.get(), other.join()};
    }

    private Timing time(Supplier<?> op) {
        return time((Runnable) op::get);
    }

    private Timing time(Runnable op) {
        for (int i = 0; i < warmup; i++) {
            op.run();
            drain.run();
        }
        double[] ms = new double[runs];
        double[] cpu = new double[runs];
        for (int i = 0; i < runs; i++) {
            long c = CPU.getCurrentThreadCpuTime();
            long t = System.nanoTime();
            op.run();
            drain.run();
            ms[i] = (System.nanoTime() - t) / 1e6;
            cpu[i] = (CPU.getCurrentThreadCpuTime() - c) / 1e6;
        }
        return new Timing(median(ms), runs, median(cpu));
    }

    /** The median of {@code v} (the mean of the middle two for an even count). */
    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** Mean over slots of −log2 |error| (an exact slot counts as 52 bits, double precision). */
    private static double meanBits(double[] expected, double[] actual) {
        double sum = 0;
        for (int i = 0; i < expected.length; i++) {
            double e = Math.abs(expected[i] - actual[i]);
            sum += e == 0 ? 52 : Math.min(52, -Math.log(e) / Math.log(2));
        }
        return sum / expected.length;
    }

    private static double bits(double[] expected, double[] actual) {
        double max = 0;
        for (int i = 0; i < expected.length; i++) {
            max = Math.max(max, Math.abs(expected[i] - actual[i]));
        }
        return max == 0 ? 64 : -Math.log(max) / Math.log(2);
    }

    /** Peak resident set size in MiB from /proc (Linux), else the JVM's committed heap. */
    static double peakRssMib() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    String kb = line.substring(6).trim().split("\\s+")[0];
                    return Long.parseLong(kb) / 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through
        }
        return Runtime.getRuntime().totalMemory() / (1024.0 * 1024.0);
    }
}
