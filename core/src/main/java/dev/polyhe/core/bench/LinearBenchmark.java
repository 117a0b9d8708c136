package dev.polyhe.core.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.encrypted.EncryptedEngine;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.engine.encrypted.EncryptedWeights;
import dev.polyhe.core.engine.encrypted.Packing;
import dev.polyhe.core.engine.encrypted.PrimitiveKind;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

/**
 * One linear map x·Wᵀ on encrypted activations, timed side by side in one process with the weights in the clear
 * (plaintext diagonals, encoded as they are used) and encrypted ({@link EncryptedWeights}): median seconds, key
 * switches, the error against double arithmetic, and the encrypted weights' size beside what a copy of every weight
 * per token would weigh.
 */
public final class LinearBenchmark {
    private final HeBackend backend;
    private final CkksParameters parameters;
    private final int tokens;
    private final int in;
    private final int out;
    private final int runs;
    private final long seed;

    public LinearBenchmark(
            HeBackend backend, CkksParameters parameters, int tokens, int in, int out, int runs, long seed) {
        if (runs < 1 || tokens < 1 || in < 1 || out < 1) {
            throw new IllegalArgumentException("tokens, inputs, outputs and runs must be >= 1, got " + tokens + ", "
                    + in + ", " + out + ", " + runs);
        }
        this.backend = backend;
        this.parameters = parameters;
        this.tokens = tokens;
        this.in = in;
        this.out = out;
        this.runs = runs;
        this.seed = seed;
    }

    /** One way of running the map: its median seconds, key switches per run, and max |error|. */
    public record Timing(double medianSeconds, long keySwitches, double maxError) {}

    public record Result(
            String backend,
            int logN,
            int level,
            int tokens,
            int in,
            int out,
            int columnsPerCiphertext,
            Timing plaintextWeights,
            Timing encryptedWeights,
            int weightLevel,
            int weightCiphertexts,
            long weightBytes,
            long replicatedBytes,
            double encryptSeconds) {

        public ObjectNode toJson(ObjectMapper mapper) {
            ObjectNode root = mapper.createObjectNode();
            root.put("backend", backend);
            root.put("logN", logN);
            root.put("level", level);
            root.put("tokens", tokens);
            root.put("in", in);
            root.put("out", out);
            root.put("columns_per_ciphertext", columnsPerCiphertext);
            for (var e : Map.of("plaintext_weights", plaintextWeights, "encrypted_weights", encryptedWeights)
                    .entrySet()) {
                ObjectNode t = root.putObject(e.getKey());
                t.put("median_seconds", e.getValue().medianSeconds());
                t.put("key_switches", e.getValue().keySwitches());
                t.put("max_error", e.getValue().maxError());
            }
            root.put("ratio", encryptedWeights.medianSeconds() / plaintextWeights.medianSeconds());
            root.put("weight_level", weightLevel);
            root.put("weight_ciphertexts", weightCiphertexts);
            root.put("weight_bytes", weightBytes);
            root.put("replicated_bytes", replicatedBytes);
            root.put("encrypt_seconds", encryptSeconds);
            return root;
        }

        public String toTable() {
            return String.format(
                    Locale.ROOT,
                    "x [%d, %d] · Wᵀ [%d, %d] on %s, N=2^%d, level %d, %d columns per ciphertext%n"
                            + "  plaintext weights : %8.2f s  %6d key switches  max error %.2e%n"
                            + "  encrypted weights : %8.2f s  %6d key switches  max error %.2e  (%.2fx)%n"
                            + "  encrypted weights : %d ciphertexts at level %d, %.1f MiB (a copy per token: %.1f MiB),"
                            + " encrypted in %.1f s%n",
                    tokens,
                    in,
                    out,
                    in,
                    backend,
                    logN,
                    level,
                    columnsPerCiphertext,
                    plaintextWeights.medianSeconds(),
                    plaintextWeights.keySwitches(),
                    plaintextWeights.maxError(),
                    encryptedWeights.medianSeconds(),
                    encryptedWeights.keySwitches(),
                    encryptedWeights.maxError(),
                    encryptedWeights.medianSeconds() / plaintextWeights.medianSeconds(),
                    weightCiphertexts,
                    weightLevel,
                    weightBytes / 1048576.0,
                    replicatedBytes / 1048576.0,
                    encryptSeconds);
        }
    }

    /** Keys, encryption, then the two maps alternated {@code runs} times; {@code progress} gets a line a step. */
    public Result run(PrintWriter progress) {
        try (HeContext context = backend.open(parameters)) {
            int ringSlots = parameters.slots();
            Packing packing = Packing.blocks(Packing.packingSlotsFor(tokens), Math.max(in, out), ringSlots);
            progress.printf("generating keys for %s ...%n", packing);
            progress.flush();
            SecretKey sk = context.generateSecretKey();
            EvaluationKeys keys = context.generateEvaluationKeys(sk, packing.rotationSteps(), true, false);
            EncryptedEngine engine = new EncryptedEngine(
                    context, context.evaluator(keys), keys, context.encryptor(sk), context.decryptor(sk), packing);
            Random random = new Random(seed);
            Matrix x = randomMatrix(random, tokens, in, 1);
            Matrix w = randomMatrix(random, out, in, 1 / Math.sqrt(in));
            PlainEngine plain = new PlainEngine();
            Matrix expected = plain.linear(plain.fromPlain(x), w, null).toMatrix();
            EncryptedTensor cx = engine.fromPlain(x);
            int level = cx.level();
            long t0 = System.nanoTime();
            EncryptedWeights weights = engine.encryptWeights(w, level);
            double encryptSeconds = (System.nanoTime() - t0) / 1e9;
            double[] plainTimes = new double[runs];
            double[] encryptedTimes = new double[runs];
            long[] switches = new long[2];
            double[] errors = new double[2];
            for (int r = 0; r < runs; r++) {
                plainTimes[r] = timed(engine, switches, errors, 0, expected, () -> engine.linear(cx, w, null));
                encryptedTimes[r] = timed(engine, switches, errors, 1, expected, () -> engine.linear(cx, weights));
                progress.printf(
                        Locale.ROOT,
                        "run %d of %d: plaintext weights %.2f s, encrypted weights %.2f s%n",
                        r + 1,
                        runs,
                        plainTimes[r],
                        encryptedTimes[r]);
                progress.flush();
            }
            long weightBytes = weights.bytes(parameters.ringDegree());
            long ctBytes = weightBytes / weights.ciphertexts().length;
            int columns = packing.columnsPerCiphertext();
            long blockPairs = (long) ((out + columns - 1) / columns) * ((in + columns - 1) / columns);
            return new Result(
                    backend.name(),
                    parameters.logN(),
                    level,
                    tokens,
                    in,
                    out,
                    columns,
                    new Timing(CkksBenchmark.median(plainTimes), switches[0] / runs, errors[0]),
                    new Timing(CkksBenchmark.median(encryptedTimes), switches[1] / runs, errors[1]),
                    weights.level(),
                    weights.ciphertexts().length,
                    weightBytes,
                    blockPairs * columns * ctBytes,
                    encryptSeconds);
        }
    }

    private static double timed(
            EncryptedEngine engine,
            long[] switches,
            double[] errors,
            int which,
            Matrix expected,
            Supplier<EncryptedTensor> map) {
        long before = engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.ROTATION, 0L);
        long t0 = System.nanoTime();
        EncryptedTensor y = map.get();
        double seconds = (System.nanoTime() - t0) / 1e9;
        switches[which] += engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.ROTATION, 0L) - before;
        Matrix got = engine.toPlain(y);
        for (int i = 0; i < got.data().length; i++) {
            errors[which] = Math.max(errors[which], Math.abs(got.data()[i] - expected.data()[i]));
        }
        return seconds;
    }

    private static Matrix randomMatrix(Random random, int rows, int cols, double spread) {
        double[] d = new double[rows * cols];
        for (int i = 0; i < d.length; i++) {
            d[i] = spread * (2 * random.nextDouble() - 1);
        }
        return new Matrix(rows, cols, d);
    }
}
