package dev.polyhe.bench;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.api.he.SecretKey;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One step of a plaintext-weight matmul as the engine runs it on column blocks: a weight diagonal (256 columns of 128
 * token slots, each column one weight) encoded at the operand's level, then multiplied into the operand and added to
 * the running sum. The Pythia-70M shape's LM head takes about 100 000 of them; its level (2 before the tail landed
 * on level 0, 1 since) is how many limbs each pays for. All the backend's threads, as in a run:
 * {@code bench/run WeightDiagonalBenchmark -p level=1,2}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms6g", "-Xmx6g", "-XX:+AlwaysPreTouch"})
public class WeightDiagonalBenchmark {
    private static final int COLUMNS = 256;

    @Param({"ckks-cpu"})
    String backend;

    @Param({"N16-boot-128"})
    String preset;

    @Param({"1", "2"})
    int level;

    HeContext context;
    Encoder encoder;
    Evaluator evaluator;
    Ciphertext operand;
    Ciphertext sum;
    double[] diagonal;
    double scale;

    @Setup(Level.Trial)
    public void open() {
        HeBackend he = Backends.named(backend);
        CkksParameters params = he.preset(preset);
        context = he.open(params);
        encoder = context.encoder();
        SecretKey sk = context.generateSecretKey();
        EvaluationKeys keys = context.generateEvaluationKeys(sk, Set.of(), false, false);
        evaluator = context.evaluator(keys);
        int slots = params.slots();
        int perColumn = slots / COLUMNS;
        Random r = new Random(1);
        diagonal = new double[slots];
        double[] x = new double[slots];
        for (int c = 0; c < COLUMNS; c++) {
            Arrays.fill(diagonal, c * perColumn, (c + 1) * perColumn, 0.02 * r.nextGaussian());
            Arrays.fill(x, c * perColumn, (c + 1) * perColumn, r.nextGaussian());
        }
        scale = params.scale();
        operand = context.encryptor(sk).encrypt(encoder.encode(x, slots, level, scale));
        sum = evaluator.multiplyPlain(operand, encoder.encode(diagonal, slots, level, scale));
    }

    @TearDown(Level.Trial)
    public void close() {
        context.close();
    }

    @Benchmark
    public Plaintext encode() {
        return encoder.encode(diagonal, diagonal.length, level, scale);
    }

    @Benchmark
    public Ciphertext encodeMultiplyAdd() {
        Plaintext w = encoder.encode(diagonal, diagonal.length, level, scale);
        return evaluator.add(sum, evaluator.multiplyPlain(operand, w));
    }
}
