package dev.polyhe.ckks.scheme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.ckks.bootstrap.EncodedDiagonal;
import dev.polyhe.ckks.executor.HostRingExecutor;
import dev.polyhe.ckks.executor.RingExecutor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The bootstrap's baby-step giant-step products by diagonals: the host executor's double-hoisted path and the
 * interface's default (baby steps divided by P one by one) both give M·z, for a random sparse matrix M whose
 * offsets cover the identity, baby steps alone, giant steps alone and both, full and sparse giant steps.
 */
class DiagonalProductTest {
    private static final int N1 = 8;
    /**
     * Offsets k of M's diagonals (modulo the slots): z[i + k] weighted by d_k[i]. Giant step 0 has all eight baby
     * steps (products four at a time, the identity left out on the special primes), the others a few.
     */
    private static final int[] OFFSETS = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, -1, -4, -7, -9};

    @Test
    void theDoubleHoistedProductIsMTimesZ() {
        double error = maxError(p -> new HostRingExecutor(p.ring(), p.gadget()), true);
        assertTrue(error < 5e-8, "double-hoisted: max error " + error);
    }

    @Test
    void theDefaultProductIsMTimesZ() {
        double error = maxError(DiagonalProductTest::withoutHoisting, false);
        assertTrue(error < 5e-8, "default: max error " + error);
    }

    @Test
    void aDiagonalAtAnotherLevelIsRefused() {
        try (CkksContext ctx = new CkksContext(CkksPresets.get("insecure-test-N12"), 1)) {
            SecretKey sk = ctx.generateSecretKey();
            CkksEvaluator ev = (CkksEvaluator) ctx.evaluator(ctx.generateEvaluationKeys(sk, Set.of(1), false, false));
            int top = ctx.parameters().maxLevel();
            int n = ctx.parameters().slots();
            Ciphertext x = ctx.encryptor(sk)
                    .encrypt(ctx.encoder()
                            .encode(new double[] {1}, n, top, ctx.parameters().scale()));
            EncodedDiagonal d = ev.encodeDiagonal(
                    new double[] {1},
                    new double[0],
                    n,
                    top - 1,
                    ctx.schemeParameters().q(top - 1));
            HeException e = assertThrows(
                    HeException.class,
                    () -> ev.multiplyDiagonalsAndRescale(
                            x, new int[] {0, 1}, new int[] {0}, new EncodedDiagonal[][] {{d, d}}));
            assertTrue(
                    e.getMessage().contains("level " + (top - 1))
                            && e.getMessage().contains("level " + top),
                    e.getMessage());
        }
    }

    /** max |decrypt(M·z) − M·z| over the slots, real and imaginary parts. */
    private static double maxError(Function<SchemeParameters, RingExecutor> executors, boolean hoisting) {
        try (CkksContext ctx = new CkksContext(CkksPresets.get("insecure-test-N12"), 2, executors)) {
            int n = ctx.parameters().slots();
            Random rnd = new Random(17);
            Map<Integer, double[][]> diagonals = new TreeMap<>();
            for (int k : OFFSETS) {
                diagonals.put(k, new double[][] {random(rnd, n), random(rnd, n)});
            }
            double[][] z = {random(rnd, n), random(rnd, n)};
            // the expected M·z
            double[] wantRe = new double[n];
            double[] wantIm = new double[n];
            for (var e : diagonals.entrySet()) {
                double[][] d = e.getValue();
                for (int i = 0; i < n; i++) {
                    int j = Math.floorMod(i + e.getKey(), n);
                    wantRe[i] += d[0][i] * z[0][j] - d[1][i] * z[1][j];
                    wantIm[i] += d[0][i] * z[1][j] + d[1][i] * z[0][j];
                }
            }
            // baby steps b = k mod N1, giant steps g = k − b; diagonal g + b pre-rotated by −g
            TreeSet<Integer> babies = new TreeSet<>();
            TreeSet<Integer> giants = new TreeSet<>();
            for (int k : OFFSETS) {
                babies.add(Math.floorMod(k, N1));
                giants.add(k - Math.floorMod(k, N1));
            }
            int[] b = babies.stream().mapToInt(Integer::intValue).toArray();
            int[] g = giants.stream().mapToInt(Integer::intValue).toArray();
            Set<Integer> steps = new TreeSet<>();
            for (int s : b) {
                steps.add(Math.floorMod(s, n));
            }
            for (int s : g) {
                steps.add(Math.floorMod(s, n));
            }
            SecretKey sk = ctx.generateSecretKey();
            CkksEvaluator ev = (CkksEvaluator) ctx.evaluator(ctx.generateEvaluationKeys(sk, steps, false, false));
            int level = ctx.parameters().maxLevel();
            double scale = ctx.parameters().scale();
            double prime = ctx.schemeParameters().q(level);
            CkksDiagonal[][] encoded = new CkksDiagonal[g.length][b.length];
            for (int gi = 0; gi < g.length; gi++) {
                for (int bi = 0; bi < b.length; bi++) {
                    double[][] d = diagonals.get(g[gi] + b[bi]);
                    if (d == null) {
                        continue;
                    }
                    double[] re = new double[n];
                    double[] im = new double[n];
                    for (int i = 0; i < n; i++) {
                        re[i] = d[0][Math.floorMod(i - g[gi], n)];
                        im[i] = d[1][Math.floorMod(i - g[gi], n)];
                    }
                    encoded[gi][bi] = ev.encodeDiagonal(re, im, n, level, prime);
                }
            }
            Ciphertext x = ctx.encryptor(sk).encrypt(ctx.encoder().encodeComplex(z[0], z[1], n, level, scale));
            Ciphertext y = ev.multiplyDiagonalsAndRescale(x, b, g, encoded);
            assertEquals(level - 1, y.level());
            assertEquals(scale, y.scale(), scale * 1e-12, "the diagonals' scale is the prime the rescale removes");
            double[][] got = ctx.encoder().decodeComplex(ctx.decryptor(sk).decrypt(y));
            double worst = 0;
            for (int i = 0; i < n; i++) {
                worst = Math.max(worst, Math.max(Math.abs(got[0][i] - wantRe[i]), Math.abs(got[1][i] - wantIm[i])));
            }
            int extra = hoisting ? ctx.schemeParameters().ring().pCount() : 0;
            assertEquals(
                    level + 1 + extra,
                    encoded[giants.headSet(0).size()][0].poly().limbCount(),
                    "diagonals carry the special primes only where the executor double-hoists");
            return worst;
        }
    }

    private static double[] random(Random rnd, int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = 2 * rnd.nextDouble() - 1;
        }
        return v;
    }

    /** The host's arithmetic with the interface's own diagonal operations (hoistsDiagonals false). */
    private static RingExecutor withoutHoisting(SchemeParameters p) {
        RingExecutor host = new HostRingExecutor(p.ring(), p.gadget());
        InvocationHandler h = (proxy, method, args) -> {
            if (Set.of("diagonalsRescale", "hoistsDiagonals", "uploadDiagonal").contains(method.getName())) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            try {
                return method.invoke(host, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        RingExecutor proxy = (RingExecutor)
                Proxy.newProxyInstance(RingExecutor.class.getClassLoader(), new Class<?>[] {RingExecutor.class}, h);
        assertFalse(proxy.hoistsDiagonals());
        return proxy;
    }
}
