package dev.polyhe.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.polyhe.api.he.Availability;
import dev.polyhe.ckks.executor.HostRingExecutor;
import dev.polyhe.ckks.executor.KeySwitchDigits;
import dev.polyhe.ckks.executor.RingExecutor;
import dev.polyhe.ckks.executor.RnsPoly;
import dev.polyhe.ckks.ring.Automorphism;
import dev.polyhe.ckks.ring.LimbPool;
import dev.polyhe.ckks.ring.RnsRing;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import dev.polyhe.ckks.scheme.CkksPresets;
import dev.polyhe.ckks.scheme.SchemeParameters;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * RNS arithmetic is exact, so the GPU must give ckks-cpu's limbs: every {@link RingExecutor} operation, on the same
 * random inputs and keys, downloaded and compared limb by limb with the Java executor's, at the top level and
 * lower ones (where key switching has fewer digits and a shorter last digit). Skipped, with the reason, without a GPU.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CudaLimbTest {
    private LimbPool pool;
    private SchemeParameters params;
    private RnsRing ring;
    private RingExecutor host;
    private CudaRingExecutor gpu;
    private final SplittableRandom random = new SplittableRandom(20261201);

    /** Where the executor under test runs: GPU 0 (or nothing, where there is none). */
    Availability availability() {
        return new CkksCudaBackend().availability();
    }

    CudaRingExecutor executor(SchemeParameters params) {
        return CudaRingExecutor.open(params);
    }

    @BeforeAll
    void open() {
        if (!availability().available()) {
            return; // each test is skipped with the reason (below)
        }
        pool = new LimbPool(2, 1);
        params = new SchemeParameters(CkksPresets.get("insecure-test-N12"), pool);
        ring = params.ring();
        host = new HostRingExecutor(ring, params.gadget());
        gpu = executor(params);
    }

    @BeforeEach
    void requireGpu() {
        Availability a = availability();
        assumeTrue(a.available(), () -> "ckks-cuda cannot run here: " + a.reason());
    }

    @AfterAll
    void close() {
        if (gpu != null) {
            gpu.close();
        }
        if (pool != null) {
            pool.close();
        }
    }

    private long[][] randomLimbs(int limbs, int level) {
        long[][] out = new long[limbs][ring.n()];
        for (int k = 0; k < limbs; k++) {
            long q = ring.modulus(ring.extendedIndex(level, k)).value();
            for (int c = 0; c < ring.n(); c++) {
                out[k][c] = random.nextLong(q);
            }
        }
        return out;
    }

    /** Both executors' handles of the same host limbs. */
    private record Pair(RnsPoly host, RnsPoly gpu) {}

    private Pair random(int level) {
        long[][] limbs = randomLimbs(level + 1, level);
        return new Pair(host.upload(limbs), gpu.upload(copy(limbs)));
    }

    private static long[][] copy(long[][] limbs) {
        long[][] c = new long[limbs.length][];
        for (int i = 0; i < limbs.length; i++) {
            c[i] = limbs[i].clone();
        }
        return c;
    }

    private void same(RnsPoly expected, RnsPoly actual, String what) {
        int limbs = expected.limbCount();
        assertEquals(limbs, actual.limbCount(), what + ": limb count");
        long[][] e = host.download(expected, limbs);
        long[][] g = gpu.download(actual, limbs);
        for (int k = 0; k < limbs; k++) {
            assertArrayEquals(e[k], g[k], what + ": limb " + k);
        }
    }

    private int[] levels() {
        int top = params.maxLevel();
        return new int[] {top, top - 1, 1, 0};
    }

    @Test
    void uploadAndDownloadRoundTrip() {
        long[][] limbs = randomLimbs(params.maxLevel() + 1, params.maxLevel());
        long[][] back = gpu.download(gpu.upload(copy(limbs)), limbs.length);
        for (int k = 0; k < limbs.length; k++) {
            assertArrayEquals(limbs[k], back[k], "limb " + k);
        }
    }

    @Test
    void elementWiseOperationsAgree() {
        for (int level : levels()) {
            Pair a = random(level);
            Pair b = random(level);
            for (var op : new Object[][] {
                {"add", (BiFunction<RingExecutor, RnsPoly[], RnsPoly>) (x, p) -> x.add(p[0], p[1], level)},
                {"sub", (BiFunction<RingExecutor, RnsPoly[], RnsPoly>) (x, p) -> x.sub(p[0], p[1], level)},
                {"multiply", (BiFunction<RingExecutor, RnsPoly[], RnsPoly>) (x, p) -> x.multiply(p[0], p[1], level)},
                {"negate", (BiFunction<RingExecutor, RnsPoly[], RnsPoly>) (x, p) -> x.negate(p[0], level)}
            }) {
                @SuppressWarnings("unchecked")
                BiFunction<RingExecutor, RnsPoly[], RnsPoly> f = (BiFunction<RingExecutor, RnsPoly[], RnsPoly>) op[1];
                same(
                        f.apply(host, new RnsPoly[] {a.host(), b.host()}),
                        f.apply(gpu, new RnsPoly[] {a.gpu(), b.gpu()}),
                        op[0] + " at level " + level);
            }
            long[] scalars = new long[level + 1];
            for (int i = 0; i <= level; i++) {
                scalars[i] = random.nextLong(ring.modulus(i).value());
            }
            same(
                    host.multiplyScalars(a.host(), scalars, level),
                    gpu.multiplyScalars(a.gpu(), scalars, level),
                    "multiplyScalars at level " + level);
            same(
                    host.addScalars(a.host(), scalars, level),
                    gpu.addScalars(a.gpu(), scalars, level),
                    "addScalars at level " + level);
            Pair c = random(level);
            Pair d = random(level);
            RnsPoly[] th = host.tensor(a.host(), b.host(), c.host(), d.host(), level);
            RnsPoly[] tg = gpu.tensor(a.gpu(), b.gpu(), c.gpu(), d.gpu(), level);
            for (int i = 0; i < 3; i++) {
                same(th[i], tg[i], "tensor d" + i + " at level " + level);
            }
            same(
                    host.addInto(host.add(a.host(), b.host(), level), c.host(), level),
                    gpu.addInto(gpu.add(a.gpu(), b.gpu(), level), c.gpu(), level),
                    "addInto at level " + level);
        }
    }

    /** A plaintext from its integer coefficients, as the encoder hands them over (|c| < 2^62, either sign). */
    @Test
    void plaintextsFromCoefficientsAgree() {
        for (int level : levels()) {
            long[] coefficients = new long[ring.n()];
            for (int c = 0; c < coefficients.length; c++) {
                coefficients[c] = random.nextLong(-(1L << 61), 1L << 61) >> random.nextInt(60);
            }
            same(
                    host.fromCoefficients(coefficients.clone(), level),
                    gpu.fromCoefficients(coefficients.clone(), level),
                    "fromCoefficients at level " + level);
        }
    }

    @Test
    void automorphismsAgree() {
        int level = params.maxLevel();
        Pair a = random(level);
        long twoN = 2L * ring.n();
        for (long g : new long[] {5, 25, twoN - 1, 3 * 5 % twoN}) {
            Automorphism auto = new Automorphism(ring.logN(), g);
            same(host.automorphism(a.host(), auto, level), gpu.automorphism(a.gpu(), auto, level), "automorphism " + g);
        }
    }

    @Test
    void rescaleAgreesAtEveryLevel() {
        for (int level = params.maxLevel(); level >= 1; level--) {
            Pair a = random(level);
            Pair b = random(level);
            RnsPoly[] h = host.rescale(new RnsPoly[] {a.host(), b.host()}, level);
            RnsPoly[] g = gpu.rescale(new RnsPoly[] {a.gpu(), b.gpu()}, level);
            same(h[0], g[0], "rescale c0 from level " + level);
            same(h[1], g[1], "rescale c1 from level " + level);
        }
    }

    /** A key of random limbs over every prime (the kernels never look at what a key means). */
    private SwitchingKey randomKey() {
        int primes = ring.qCount() + ring.pCount();
        long[][][][] digits = new long[params.gadget().digitCount()][2][primes][];
        for (long[][][] digit : digits) {
            for (long[][] part : digit) {
                for (int p = 0; p < primes; p++) {
                    long q = ring.modulus(p).value();
                    part[p] = new long[ring.n()];
                    for (int c = 0; c < ring.n(); c++) {
                        part[p][c] = random.nextLong(q);
                    }
                }
            }
        }
        return new SwitchingKey(digits);
    }

    @Test
    void keySwitchingAgreesAtEveryLevel() {
        SwitchingKey key = randomKey();
        for (int level : levels()) {
            Pair d = random(level);
            KeySwitchDigits hd = host.decompose(d.host(), level);
            KeySwitchDigits gd = gpu.decompose(d.gpu(), level);
            RnsPoly[] h = host.applyKey(hd, key, level);
            RnsPoly[] g = gpu.applyKey(gd, key, level);
            same(h[0], g[0], "key switch c0 at level " + level);
            same(h[1], g[1], "key switch c1 at level " + level);
            // hoisting: the same digits with a second key
            SwitchingKey other = randomKey();
            same(host.applyKey(hd, other, level)[0], gpu.applyKey(gd, other, level)[0], "hoisted second key");
        }
    }

    /** The fused forms the CPU executor overrides, held to its limbs: pairs of products, and key switches summed. */
    @Test
    void productPairsAgree() {
        for (int level : levels()) {
            Pair a0 = random(level);
            Pair a1 = random(level);
            Pair b = random(level);
            Pair s0 = random(level);
            Pair s1 = random(level);
            RnsPoly[] h = host.multiplyPair(a0.host(), a1.host(), b.host(), level);
            RnsPoly[] g = gpu.multiplyPair(a0.gpu(), a1.gpu(), b.gpu(), level);
            same(h[0], g[0], "multiplyPair 0 at level " + level);
            same(h[1], g[1], "multiplyPair 1 at level " + level);
            h = host.multiplyPairAdd(s0.host(), s1.host(), a0.host(), a1.host(), b.host(), level);
            g = gpu.multiplyPairAdd(s0.gpu(), s1.gpu(), a0.gpu(), a1.gpu(), b.gpu(), level);
            same(h[0], g[0], "multiplyPairAdd 0 at level " + level);
            same(h[1], g[1], "multiplyPairAdd 1 at level " + level);
        }
    }

    @Test
    void relinearizationRescaledAgreesAtEveryLevel() {
        SwitchingKey key = randomKey();
        for (int level : levels()) {
            if (level < 1) {
                continue;
            }
            Pair d0 = random(level);
            Pair d1 = random(level);
            Pair d2 = random(level);
            RnsPoly[] h = host.relinearizeRescale(new RnsPoly[] {d0.host(), d1.host(), d2.host()}, key, level);
            RnsPoly[] g = gpu.relinearizeRescale(new RnsPoly[] {d0.gpu(), d1.gpu(), d2.gpu()}, key, level);
            same(h[0], g[0], "relinearizeRescale c0 at level " + level);
            same(h[1], g[1], "relinearizeRescale c1 at level " + level);
        }
    }

    /** Three terms, the first two rotations of one polynomial (one ModUp), plus the same sum rescaled. */
    @Test
    void sumsOfKeySwitchesAgreeAtEveryLevel() {
        SwitchingKey[] keys = {randomKey(), randomKey(), randomKey()};
        Automorphism[] autos = {
            new Automorphism(ring.logN(), 5),
            new Automorphism(ring.logN(), 25),
            new Automorphism(ring.logN(), 2L * ring.n() - 1)
        };
        for (int level : levels()) {
            Pair x = random(level);
            Pair y = random(level);
            RnsPoly[] hs = {x.host(), x.host(), y.host()};
            RnsPoly[] gs = {x.gpu(), x.gpu(), y.gpu()};
            RnsPoly[] h = host.keySwitchSum(hs, keys, autos, level);
            RnsPoly[] g = gpu.keySwitchSum(gs, keys, autos, level);
            same(h[0], g[0], "keySwitchSum c0 at level " + level);
            same(h[1], g[1], "keySwitchSum c1 at level " + level);
            if (level < 1) {
                continue;
            }
            Pair d0 = random(level);
            Pair d1 = random(level);
            h = host.keySwitchSumRescale(hs, keys, autos, d0.host(), d1.host(), level);
            g = gpu.keySwitchSumRescale(gs, keys, autos, d0.gpu(), d1.gpu(), level);
            same(h[0], g[0], "keySwitchSumRescale c0 at level " + level);
            same(h[1], g[1], "keySwitchSumRescale c1 at level " + level);
            h = host.keySwitchSumRescale(hs, keys, autos, d0.host(), null, level);
            g = gpu.keySwitchSumRescale(gs, keys, autos, d0.gpu(), null, level);
            same(h[1], g[1], "keySwitchSumRescale without d1 at level " + level);
        }
    }

    /**
     * A double-hoisted baby-step giant-step product at every level: the identity and two rotations as baby steps,
     * the identity and two rotations as giant steps, one diagonal missing; the diagonals over Q_level ∪ P.
     */
    @Test
    void doubleHoistedDiagonalsAgreeAtEveryLevel() {
        assertTrue(gpu.hoistsDiagonals(), "ckks-cuda double-hoists where ckks-cpu does");
        SwitchingKey[] babyKeys = {null, randomKey(), randomKey()};
        Automorphism[] babyAutos = {null, new Automorphism(ring.logN(), 5), new Automorphism(ring.logN(), 25)};
        SwitchingKey[] giantKeys = {null, randomKey(), randomKey()};
        Automorphism[] giantAutos = {
            null, new Automorphism(ring.logN(), 125), new Automorphism(ring.logN(), 2L * ring.n() - 1)
        };
        for (int level : levels()) {
            if (level < 1) {
                continue;
            }
            int width = level + 1 + ring.pCount();
            RnsPoly[][] hd = new RnsPoly[giantKeys.length][babyKeys.length];
            RnsPoly[][] gd = new RnsPoly[giantKeys.length][babyKeys.length];
            for (int g = 0; g < giantKeys.length; g++) {
                for (int b = 0; b < babyKeys.length; b++) {
                    if (g == 1 && b == 2) {
                        continue; // a matrix without that diagonal
                    }
                    long[][] limbs = randomLimbs(width, level);
                    hd[g][b] = host.uploadDiagonal(copy(limbs));
                    gd[g][b] = gpu.uploadDiagonal(copy(limbs));
                }
            }
            Pair c0 = random(level);
            Pair c1 = random(level);
            RnsPoly[] h =
                    host.diagonalsRescale(c0.host(), c1.host(), babyKeys, babyAutos, hd, giantKeys, giantAutos, level);
            RnsPoly[] g =
                    gpu.diagonalsRescale(c0.gpu(), c1.gpu(), babyKeys, babyAutos, gd, giantKeys, giantAutos, level);
            same(h[0], g[0], "diagonalsRescale c0 at level " + level);
            same(h[1], g[1], "diagonalsRescale c1 at level " + level);
        }
    }

    @Test
    void levelZeroSwitchAndModRaiseAgree() {
        SwitchingKey key = randomKey();
        Pair d = random(0);
        RnsPoly[] h = host.switchAtLevelZero(d.host(), key);
        RnsPoly[] g = gpu.switchAtLevelZero(d.gpu(), key);
        same(h[0], g[0], "level-0 switch c0");
        same(h[1], g[1], "level-0 switch c1");
        int top = params.maxLevel();
        same(host.modRaise(d.host(), top), gpu.modRaise(d.gpu(), top), "ModRaise");
    }

    @Test
    void deviceMemoryOfDroppedHandlesIsReused() throws InterruptedException {
        int level = params.maxLevel();
        long polyBytes = (level + 1L) * ring.n() * Long.BYTES;
        Pair a = random(level);
        long before = gpu.peakBytes();
        for (int i = 0; i < 200; i++) {
            gpu.add(a.gpu(), a.gpu(), level); // dropped at once
            if (i % 10 == 9) {
                System.gc();
                Thread.sleep(20);
            }
        }
        assertTrue(
                gpu.peakBytes() - before < 60 * polyBytes,
                "200 dropped results raised the peak by " + (gpu.peakBytes() - before) / polyBytes
                        + " polynomials: their memory is not coming back");
        assertTrue(gpu.describe().contains("compute"), gpu.describe());
    }

    @Test
    void limbsOfTheHostExecutorAreRefusedNotMisread() {
        Pair a = random(0);
        var e = org.junit.jupiter.api.Assertions.assertThrows(
                dev.polyhe.ckks.executor.ForeignPolynomialException.class, () -> gpu.add(a.host(), a.gpu(), 0));
        assertTrue(e.getMessage().contains("another context"), e.getMessage());
    }

    @Test
    void aClosedExecutorRefusesWork() {
        CudaRingExecutor other = executor(params);
        other.close();
        long[][] limbs = randomLimbs(1, 0);
        IllegalStateException e =
                org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> other.upload(limbs));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
}
