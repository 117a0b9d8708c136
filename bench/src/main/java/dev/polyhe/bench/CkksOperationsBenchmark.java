package dev.polyhe.bench;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SingleLimbNtt;
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
 * The hot CKKS operations of a backend on one of its presets (by default OpenFHE's N = 2^14 chain of
 * ANCHORS.md), one thread: one-limb NTT, ct·ct with relinearization, rotation, rescale, ct·pt, add. Run with
 * {@code bench/run} (see there); {@code polyhe bench ckks} measures the same operations with its own timer.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-XX:+AlwaysPreTouch", "-Dpolyhe.cpu.threads=1"})
public class CkksOperationsBenchmark {
    @Param({"ckks-cpu"})
    String backend;

    @Param({"N14-128"})
    String preset;

    HeContext context;
    Evaluator evaluator;
    Ciphertext a;
    Ciphertext b;
    Ciphertext product;
    Plaintext plain;
    Runnable ntt;

    @Setup(Level.Trial)
    public void open() {
        HeBackend he = Backends.named(backend);
        CkksParameters params = he.preset(preset);
        context = he.open(params);
        SecretKey sk = context.generateSecretKey();
        EvaluationKeys keys = context.generateEvaluationKeys(sk, Set.of(1), false, false);
        evaluator = context.evaluator(keys);
        double[] v = new double[params.slots()];
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.sin(i);
        }
        plain = context.encoder().encode(v, params.slots(), params.maxLevel(), params.scale());
        a = context.encryptor(sk).encrypt(plain);
        b = context.encryptor(sk).encrypt(plain);
        product = evaluator.multiply(a, b);
        ntt = context instanceof SingleLimbNtt n ? n.nttOfOneLimb() : () -> {};
    }

    @TearDown(Level.Trial)
    public void close() {
        context.close();
    }

    @Benchmark
    public void nttOneLimb() {
        ntt.run();
    }

    @Benchmark
    public Ciphertext multiplyRelinearize() {
        return evaluator.multiply(a, b);
    }

    @Benchmark
    public Ciphertext rotate() {
        return evaluator.rotate(a, 1);
    }

    @Benchmark
    public Ciphertext rescale() {
        return evaluator.rescale(product);
    }

    @Benchmark
    public Ciphertext multiplyPlain() {
        return evaluator.multiplyPlain(a, plain);
    }

    @Benchmark
    public Ciphertext add() {
        return evaluator.add(a, b);
    }
}
