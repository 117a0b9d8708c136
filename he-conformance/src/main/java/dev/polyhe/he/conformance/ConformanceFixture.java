package dev.polyhe.he.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.polyhe.api.he.Availability;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.Decryptor;
import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.Encryptor;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.PublicKey;
import dev.polyhe.api.he.SecretKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * What the conformance kit's checks stand on: the backend and parameters a backend's test supplies, one context with
 * its keys opened for the whole class (skipped, with the reason, where the backend cannot run), and the helpers the
 * checks share. {@link HeBackendConformanceTest} holds the checks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ConformanceFixture {
    /** The backend under test. */
    protected abstract HeBackend backend();

    /** The parameter set most checks run on (small insecure rings keep the kit fast). */
    protected abstract CkksParameters parameters();

    /** A different parameter set of the same backend: its blobs and ciphertexts must be refused here. */
    protected abstract CkksParameters otherParameters();

    /** Rotation steps checked one by one: by default every power of two below the slot count. */
    protected List<Integer> powerOfTwoSteps() {
        List<Integer> steps = new ArrayList<>();
        for (int s = 1; s < parameters().slots(); s <<= 1) {
            steps.add(s);
        }
        return steps;
    }

    /** Random (non power-of-two) steps, fixed per run by the seed, plus a negative one. */
    protected List<Integer> randomSteps() {
        Random r = new Random(7);
        int slots = parameters().slots();
        return List.of(3 + r.nextInt(slots - 4), 5 + r.nextInt(slots / 2), -1);
    }

    /**
     * The least precision in bits an operation must reach. Defaults: encoding loses about logN/2 bits to
     * rounding; encryption and every homomorphic operation about logN + 7 bits to noise and rescaling (a chain
     * of products, and a product by the integer 3, one and a half bits more).
     */
    protected double minimumBits(String operation) {
        CkksParameters p = parameters();
        double scaleBits = Math.min(p.logScale(), 45);
        if (operation.equals("encode")) {
            return scaleBits - p.logN() / 2.0 - 6;
        }
        double bits = scaleBits - p.logN() - 7;
        return operation.equals("multiply-chain") || operation.equals("multiplyInteger") ? bits - 1.5 : bits;
    }

    protected HeContext context;
    protected SecretKey secretKey;
    protected PublicKey publicKey;
    protected EvaluationKeys evaluationKeys;
    protected Encoder encoder;
    protected Encryptor encryptor;
    protected Encryptor symmetricEncryptor;
    protected Decryptor decryptor;
    protected Evaluator evaluator;
    protected int slots;
    protected int maxLevel;
    protected double scale;
    protected final Random random = new Random(20240611);

    /** A backend that cannot run here (no GPU, no driver) has every test skipped, with its reason. */
    @BeforeEach
    void requireAvailableBackend() {
        Availability here = backend().availability();
        assumeTrue(here.available(), () -> backend().name() + " cannot run here: " + here.reason());
    }

    @BeforeAll
    public void openContextAndKeys() {
        if (!backend().availability().available()) {
            return; // each test is skipped with the reason (below)
        }
        CkksParameters p = parameters();
        context = backend().open(p);
        slots = p.slots();
        maxLevel = p.maxLevel();
        scale = p.scale();
        secretKey = context.generateSecretKey();
        publicKey = context.generatePublicKey(secretKey);
        Set<Integer> steps = new LinkedHashSet<>(powerOfTwoSteps());
        steps.addAll(randomSteps());
        evaluationKeys = context.generateEvaluationKeys(secretKey, steps, true, false);
        encoder = context.encoder();
        encryptor = context.encryptor(publicKey);
        symmetricEncryptor = context.encryptor(secretKey);
        decryptor = context.decryptor(secretKey);
        evaluator = context.evaluator(evaluationKeys);
    }

    @AfterAll
    public void closeContext() {
        if (context != null) {
            context.close();
        }
    }

    protected double[] randomVector(int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = 2 * random.nextDouble() - 1;
        }
        return v;
    }

    protected Ciphertext encrypt(double[] v) {
        return encryptor.encrypt(encoder.encode(v, slots, maxLevel, scale));
    }

    protected double[] decrypt(Ciphertext c) {
        return encoder.decode(decryptor.decrypt(c));
    }

    /** −log2 of the largest absolute difference. */
    protected static double precisionBits(double[] expected, double[] actual) {
        assertEquals(expected.length, actual.length, "slot count");
        double max = 0;
        for (int i = 0; i < expected.length; i++) {
            max = Math.max(max, Math.abs(expected[i] - actual[i]));
        }
        return max == 0 ? 64 : -Math.log(max) / Math.log(2);
    }

    protected void assertPrecision(String operation, double[] expected, double[] actual) {
        double bits = precisionBits(expected, actual);
        double min = minimumBits(operation);
        assertTrue(bits >= min, String.format("%s: precision %.2f bits, at least %.2f required", operation, bits, min));
    }

    protected static double[] rotateLeft(double[] v, int step) {
        int n = v.length;
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = v[Math.floorMod(i + step, n)];
        }
        return out;
    }

    protected static byte[] bytes(IoWriter w) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        w.write(out);
        return out.toByteArray();
    }

    /** Writes a blob (a key, a ciphertext) to a stream, for {@link #bytes}. */
    @FunctionalInterface
    protected interface IoWriter {
        void write(ByteArrayOutputStream out) throws IOException;
    }
}
