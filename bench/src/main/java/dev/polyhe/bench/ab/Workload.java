package dev.polyhe.bench.ab;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.api.he.PublicKey;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.ckks.scheme.CkksContext;
import dev.polyhe.ckks.scheme.CkksPresets;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * One copy of he-ckks's hot operations, loaded once per build by {@link SameProcessAb} (each in a class loader of
 * its own, so two builds of the same classes run side by side in one JVM). N16-boot-128, level from
 * -Dlevel (default the top), two limb threads.
 */
public final class Workload {
    private static final int[] STEPS = {1, 2, 3, 4, 5, 6, 7, 8};
    private static CkksContext context;
    private static Evaluator evaluator;
    private static Ciphertext atZero;
    private static Ciphertext atLevel;
    private static Plaintext weights;

    private Workload() {}

    public static void setup(boolean bootstrapping) {
        context = new CkksContext(CkksPresets.get(CkksPresets.BOOTSTRAPPING_128), 2);
        SecretKey sk = context.generateSecretKey();
        PublicKey pk = context.generatePublicKey(sk);
        Set<Integer> steps = new TreeSet<>();
        Arrays.stream(STEPS).forEach(steps::add);
        int slots = context.schemeParameters().slots();
        EvaluationKeys keys = context.generateEvaluationKeys(sk, steps, true, bootstrapping ? Set.of(slots) : Set.of());
        evaluator = context.evaluator(keys, null);
        double[] v = new double[slots];
        Random r = new Random(3);
        for (int i = 0; i < slots; i++) {
            v[i] = 2 * r.nextDouble() - 1;
        }
        int level = Integer.getInteger("level", context.schemeParameters().maxLevel());
        double scale = Math.pow(2, 40);
        atZero = context.encryptor(pk).encrypt(context.encoder().encode(v, slots, 0, scale));
        atLevel = context.encryptor(pk).encrypt(context.encoder().encode(v, slots, level, scale));
        weights = context.encoder().encode(v, slots, level, scale);
        if (bootstrapping) {
            evaluator.bootstrap(atZero); // builds the circuit's constants, untimed
        }
    }

    /** One bootstrap of a full-slot ciphertext. */
    public static long bootstrap() {
        long t = System.nanoTime();
        evaluator.bootstrap(atZero);
        return System.nanoTime() - t;
    }

    /** Four hoisted sums of eight rotations and eight single rotations. */
    public static long rotations() {
        long t = System.nanoTime();
        Ciphertext[] xs = new Ciphertext[STEPS.length];
        Arrays.fill(xs, atLevel);
        for (int i = 0; i < 4; i++) {
            evaluator.rotateSum(xs, STEPS);
        }
        for (int step : STEPS) {
            evaluator.rotate(atLevel, step);
        }
        return System.nanoTime() - t;
    }

    /** A sum of forty ciphertext-plaintext products, as a matrix row by the diagonal method adds them. */
    public static long plainSum() {
        long t = System.nanoTime();
        Ciphertext sum = evaluator.multiplyPlain(atLevel, weights);
        for (int i = 1; i < 40; i++) {
            sum = evaluator.multiplyPlainAndAdd(sum, atLevel, weights);
        }
        return System.nanoTime() - t;
    }

    /** Forty ciphertext-plaintext products. */
    public static long plain() {
        long t = System.nanoTime();
        for (int i = 0; i < 40; i++) {
            evaluator.multiplyPlain(atLevel, weights);
        }
        return System.nanoTime() - t;
    }
}
