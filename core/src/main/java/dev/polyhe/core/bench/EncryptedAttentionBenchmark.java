package dev.polyhe.core.bench;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.core.Plugins;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.encrypted.EncryptedEngine;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.engine.encrypted.Packing;
import dev.polyhe.core.engine.encrypted.PrimitiveKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The paper's Table 5 on our own backend: attention normalization of encrypted [T, T] score blocks by
 * length-agnostic PowerSoftmax, by Taylor exp + Goldschmidt (NEXUS style) and by normalize-and-square
 * (Cho et al.), all with the same Goldschmidt iteration count, timed in one run, side by side.
 *
 * <p>Each block is encrypted with as many diagonals per ciphertext as the ring holds (min(P, (N/2)/P)), so
 * 1024 tokens at N = 2^16 are 32 ciphertexts. A chain shorter than the deepest program gets bootstrapping keys
 * for those ciphertexts, and the engine bootstraps wherever a program runs out of levels.
 */
public final class EncryptedAttentionBenchmark {
    /** The mechanisms compared, in the paper's column order. */
    public static final List<String> MECHANISMS =
            List.of("softmax-taylor-goldschmidt", "softmax-square", "power-softmax-length-agnostic");

    /** PowerSoftmax first: its figure is in hand early on long (bootstrapped) runs; rows print in paper order. */
    private static final List<String> RUN_ORDER =
            List.of("power-softmax-length-agnostic", "softmax-taylor-goldschmidt", "softmax-square");

    private final Plugins plugins;

    public EncryptedAttentionBenchmark(Plugins plugins) {
        this.plugins = plugins;
    }

    /**
     * @param seconds wall time of the normalization of one head's score block
     * @param depth the program's multiplicative depth (as the plain engine counts it)
     * @param maxError max |encrypted − plaintext| of the same polynomial program
     */
    public record Row(
            int tokens,
            String mechanism,
            double seconds,
            int depth,
            long bootstraps,
            long multiplications,
            double maxError) {}

    public record Report(String backend, CkksParameters parameters, int iterations, List<Row> rows) {
        public String toText() {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format(
                    Locale.ROOT,
                    "Encrypted attention normalization (%s, N=2^%d, %d levels, %s), "
                            + "one head's score block, Goldschmidt iterations %d%n",
                    backend,
                    parameters.logN(),
                    parameters.maxLevel(),
                    parameters.security().configName(),
                    iterations));
            sb.append(String.format(
                    Locale.ROOT,
                    "%-7s %-32s %10s %6s %11s %8s %11s%n",
                    "tokens",
                    "mechanism",
                    "seconds",
                    "depth",
                    "bootstraps",
                    "mults",
                    "max|err|"));
            for (Row r : rows) {
                sb.append(String.format(
                        Locale.ROOT,
                        "%-7d %-32s %10.3f %6d %11d %8d %11.2e%n",
                        r.tokens(),
                        r.mechanism(),
                        r.seconds(),
                        r.depth(),
                        r.bootstraps(),
                        r.multiplications(),
                        r.maxError()));
            }
            for (int t : rows.stream().mapToInt(Row::tokens).distinct().toArray()) {
                Row power = find(t, "power-softmax-length-agnostic");
                if (power == null) {
                    continue;
                }
                sb.append(String.format(Locale.ROOT, "tokens %d: PowerSoftmax is", t));
                for (String m : List.of("softmax-taylor-goldschmidt", "softmax-square")) {
                    Row other = find(t, m);
                    if (other != null) {
                        sb.append(String.format(
                                Locale.ROOT, " %.1fx faster than %s;", other.seconds() / power.seconds(), m));
                    }
                }
                sb.append(System.lineSeparator());
            }
            return sb.toString();
        }

        private Row find(int tokens, String mechanism) {
            return rows.stream()
                    .filter(r -> r.tokens() == tokens && r.mechanism().equals(mechanism))
                    .findFirst()
                    .orElse(null);
        }
    }

    /**
     * Levels a chain needs for every mechanism without bootstrapping: the deepest program as the plain engine
     * measures it, plus a quarter for the engine's scale alignments (measured: 27 → 30, 55 → 64).
     */
    public int levelsNeeded(int iterations) {
        int depth = 0;
        Matrix scores = scores(4, new Random(1));
        for (String name : MECHANISMS) {
            PlainEngine plain = new PlainEngine();
            depth = Math.max(
                    depth,
                    plain.depth(plugins.attention(choice(name, iterations))
                            .normalize(plain, plain.fromPlain(scores), null)));
        }
        return depth + (depth + 3) / 4;
    }

    public Report run(
            HeBackend backend,
            CkksParameters params,
            int[] tokens,
            int iterations,
            long seed,
            Consumer<String> progress) {
        List<Row> rows = new ArrayList<>();
        Set<Integer> steps = new TreeSet<>();
        Set<Integer> widths = new TreeSet<>();
        for (int t : tokens) {
            int slots = Packing.packingSlotsFor(t);
            if (slots > params.slots()) {
                throw new IllegalArgumentException(t + " tokens need " + slots + " slots but N=2^" + params.logN()
                        + " has " + params.slots() + "; use a larger ring");
            }
            int d = Packing.maxDiagonalsPerCiphertext(slots, params.slots());
            steps.addAll(Packing.rowSumSteps(slots, d));
            widths.add(slots * d);
        }
        boolean bootstrapping = params.maxLevel() < levelsNeeded(iterations);
        try (HeContext ctx = backend.open(params)) {
            SecretKey sk = ctx.generateSecretKey();
            progress.accept("generating evaluation keys"
                    + (bootstrapping ? " with bootstrapping for " + widths + " slots" : ""));
            EvaluationKeys keys = ctx.generateEvaluationKeys(sk, steps, false, bootstrapping ? widths : Set.of());
            for (int t : tokens) {
                int slots = Packing.packingSlotsFor(t);
                int d = Packing.maxDiagonalsPerCiphertext(slots, params.slots());
                Matrix scores = scores(t, new Random(seed + t));
                for (String name : RUN_ORDER) {
                    progress.accept("tokens " + t + ": " + name);
                    AttentionKernel kernel = plugins.attention(choice(name, iterations));
                    PlainEngine plain = new PlainEngine();
                    var plainOut = kernel.normalize(plain, plain.fromPlain(scores), null);
                    Matrix expected = plainOut.toMatrix();
                    int depth = plain.depth(plainOut);
                    double seconds = 0;
                    long bootstraps = 0;
                    long mults = 0;
                    double err = 0;
                    EncryptedEngine engine = new EncryptedEngine(
                            ctx,
                            ctx.evaluator(keys),
                            keys,
                            ctx.encryptor(sk),
                            ctx.decryptor(sk),
                            new Packing(slots, 1, d));
                    EncryptedTensor enc = engine.fromPlainScores(scores);
                    long t0 = System.nanoTime();
                    EncryptedTensor w = kernel.normalize(engine, enc, null);
                    seconds += (System.nanoTime() - t0) / 1e9;
                    bootstraps += engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L);
                    mults += engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.MULTIPLY, 0L);
                    err = Math.max(
                            err, AttentionBenchmark.errors(engine.toPlain(w).data(), expected.data())[0]);
                    progress.accept(String.format(
                            Locale.ROOT, "tokens %d: %s took %.1f s, %d bootstraps", t, name, seconds, bootstraps));
                    rows.add(new Row(t, name, seconds, depth, bootstraps, mults, err));
                }
            }
        }
        rows.sort(java.util.Comparator.comparingInt(Row::tokens)
                .thenComparingInt(r -> MECHANISMS.indexOf(r.mechanism())));
        return new Report(backend.name(), params, iterations, rows);
    }

    /**
     * The mechanism with {@code iterations} Goldschmidt iterations for its division. Normalize-and-square has two
     * kinds: the final division gets the common count, its intermediate normalizations keep their default (as in
     * Cho et al.; 21 there too would take its depth from 48 to over 110).
     */
    static PluginChoice choice(String name, int iterations) {
        return PluginChoice.of(name)
                .withOption(name.equals("softmax-square") ? "final-iterations" : "iterations", iterations);
    }

    /** Scores of attention-like magnitude: normal with standard deviation 1. */
    static Matrix scores(int t, Random rnd) {
        double[] d = new double[t * t];
        for (int i = 0; i < d.length; i++) {
            d[i] = rnd.nextGaussian();
        }
        return new Matrix(t, t, d);
    }
}
