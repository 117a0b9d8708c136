package dev.polyhe.ckks.executor;

import dev.polyhe.ckks.ring.Automorphism;
import dev.polyhe.ckks.ring.ModRaise;
import dev.polyhe.ckks.ring.RnsArithmetic;
import dev.polyhe.ckks.ring.RnsRescaler;
import dev.polyhe.ckks.ring.RnsRing;
import dev.polyhe.ckks.ring.Simd;
import dev.polyhe.ckks.rlwe.GadgetDecomposition;
import dev.polyhe.ckks.rlwe.KeySwitcher;
import dev.polyhe.ckks.rlwe.SwitchingKey;

/**
 * The ring arithmetic on JVM arrays, spread over the limb thread pool: what {@code ckks-cpu} runs on, and the
 * reference other executors are checked against limb by limb. Handles wrap the arrays without copying them.
 */
public final class HostRingExecutor implements RingExecutor {
    private final RnsRing ring;
    private final RnsArithmetic arith;
    private final RnsRescaler rescaler;
    private final KeySwitcher switcher;
    private final ModRaise modRaise;

    public HostRingExecutor(RnsRing ring, GadgetDecomposition gadget) {
        this.ring = ring;
        this.arith = new RnsArithmetic(ring);
        this.rescaler = new RnsRescaler(ring);
        this.switcher = new KeySwitcher(ring, gadget);
        this.modRaise = new ModRaise(ring);
    }

    /** Limbs on the JVM heap. */
    private record HostPoly(long[][] limbs) implements RnsPoly {
        @Override
        public int limbCount() {
            return limbs.length;
        }
    }

    private record HostDigits(long[][][] digits, int level) implements KeySwitchDigits {}

    private static long[][] l(RnsPoly p) {
        if (p instanceof HostPoly h) {
            return h.limbs;
        }
        throw new ForeignPolynomialException(p);
    }

    private static RnsPoly of(long[][] limbs) {
        return new HostPoly(limbs);
    }

    private static RnsPoly[] of(long[][][] polys) {
        RnsPoly[] out = new RnsPoly[polys.length];
        for (int i = 0; i < polys.length; i++) {
            out[i] = of(polys[i]);
        }
        return out;
    }

    @Override
    public String describe() {
        return "JVM arrays, " + ring.pool().threads() + " threads, NTT " + Simd.describe();
    }

    @Override
    public RnsPoly upload(long[][] limbs) {
        return of(limbs);
    }

    @Override
    public long[][] download(RnsPoly p, int limbs) {
        long[][] held = l(p);
        return limbs == held.length ? held : RnsArithmetic.truncate(held, limbs - 1);
    }

    @Override
    public RnsPoly prefix(RnsPoly p, int level) {
        return level + 1 == p.limbCount() ? p : of(RnsArithmetic.truncate(l(p), level));
    }

    @Override
    public RnsPoly add(RnsPoly a, RnsPoly b, int level) {
        return of(arith.add(l(a), l(b), level));
    }

    @Override
    public RnsPoly addInto(RnsPoly fresh, RnsPoly b, int level) {
        return of(arith.addInto(l(fresh), l(b), level));
    }

    @Override
    public RnsPoly sub(RnsPoly a, RnsPoly b, int level) {
        return of(arith.sub(l(a), l(b), level));
    }

    @Override
    public RnsPoly negate(RnsPoly a, int level) {
        return of(arith.negate(l(a), level));
    }

    @Override
    public RnsPoly fromCoefficients(long[] coefficients, int level) {
        return upload(ring.fromIntegers(coefficients, level, level + 1));
    }

    @Override
    public RnsPoly multiply(RnsPoly a, RnsPoly b, int level) {
        return of(arith.multiply(l(a), l(b), level));
    }

    @Override
    public RnsPoly[] multiplyPair(RnsPoly a0, RnsPoly a1, RnsPoly b, int level) {
        long[][][] r = arith.multiplyPair(l(a0), l(a1), l(b), level);
        return new RnsPoly[] {of(r[0]), of(r[1])};
    }

    @Override
    public RnsPoly[] multiplyPairAdd(RnsPoly s0, RnsPoly s1, RnsPoly a0, RnsPoly a1, RnsPoly b, int level) {
        long[][][] r = arith.multiplyPairAdd(l(s0), l(s1), l(a0), l(a1), l(b), level);
        return new RnsPoly[] {of(r[0]), of(r[1])};
    }

    @Override
    public RnsPoly[] multiplyPairSum(RnsPoly s0, RnsPoly s1, RnsPoly[] a0, RnsPoly[] a1, RnsPoly[] b, int level) {
        long[][][] x0 = new long[b.length][][];
        long[][][] x1 = new long[b.length][][];
        long[][][] y = new long[b.length][][];
        for (int t = 0; t < b.length; t++) {
            x0[t] = l(a0[t]);
            x1[t] = l(a1[t]);
            y[t] = l(b[t]);
        }
        long[][][] r = arith.multiplyPairSum(s0 == null ? null : l(s0), s1 == null ? null : l(s1), x0, x1, y, level);
        return new RnsPoly[] {of(r[0]), of(r[1])};
    }

    @Override
    public RnsPoly multiplyScalars(RnsPoly a, long[] scalars, int level) {
        return of(arith.multiplyScalars(l(a), scalars, level));
    }

    @Override
    public RnsPoly addScalars(RnsPoly a, long[] scalars, int level) {
        return of(arith.addScalars(l(a), scalars, level));
    }

    @Override
    public RnsPoly[] tensor(RnsPoly x0, RnsPoly x1, RnsPoly y0, RnsPoly y1, int level) {
        return of(arith.tensor(l(x0), l(x1), l(y0), l(y1), level));
    }

    @Override
    public RnsPoly automorphism(RnsPoly a, Automorphism g, int level) {
        return of(arith.automorphism(l(a), g, level));
    }

    @Override
    public RnsPoly[] rescale(RnsPoly[] polys, int level) {
        long[][][] in = new long[polys.length][][];
        for (int i = 0; i < polys.length; i++) {
            in[i] = l(polys[i]);
        }
        return of(rescaler.rescale(in, level));
    }

    @Override
    public KeySwitchDigits decompose(RnsPoly d, int level) {
        return new HostDigits(switcher.decompose(l(d), level), level);
    }

    @Override
    public RnsPoly[] applyKey(KeySwitchDigits digits, SwitchingKey key, int level) {
        return of(switcher.apply(((HostDigits) digits).digits(), key, level));
    }

    /** One division by P·q_level: the ModDown and the rescale at once. */
    @Override
    public RnsPoly[] relinearizeRescale(RnsPoly[] d, SwitchingKey key, int level) {
        if (ring.pCount() == 0) {
            return RingExecutor.super.relinearizeRescale(d, key, level);
        }
        long[][][] digits = switcher.decompose(l(d[2]), level);
        return of(switcher.applyRescaled(digits, key, level, l(d[0]), l(d[1])));
    }

    /** Summed over Q_level ∪ P with one ModDown for all terms. */
    @Override
    public RnsPoly[] keySwitchSum(RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, int level) {
        long[][][] in = new long[ds.length][][];
        for (int t = 0; t < ds.length; t++) {
            in[t] = l(ds[t]);
        }
        return of(switcher.switchSum(in, keys, autos, level));
    }

    /** Summed over Q_level ∪ P and divided by P·q_level once (see {@link KeySwitcher#switchSumRescaled}). */
    @Override
    public RnsPoly[] keySwitchSumRescale(
            RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, RnsPoly d0, RnsPoly d1, int level) {
        if (ring.pCount() == 0) {
            return RingExecutor.super.keySwitchSumRescale(ds, keys, autos, d0, d1, level);
        }
        long[][][] in = new long[ds.length][][];
        for (int t = 0; t < ds.length; t++) {
            in[t] = l(ds[t]);
        }
        return of(switcher.switchSumRescaled(in, keys, autos, level, l(d0), d1 == null ? null : l(d1)));
    }

    /** With special primes, the baby steps stay over Q_level ∪ P ({@link KeySwitcher#diagonalsRescaled}). */
    @Override
    public boolean hoistsDiagonals() {
        return ring.pCount() > 0;
    }

    /**
     * In Montgomery form, in place (the encoder's fresh limbs): the products of {@link KeySwitcher#diagonalsRescaled}
     * then need no conversion per coefficient.
     */
    @Override
    public RnsPoly uploadDiagonal(long[][] limbs) {
        if (!hoistsDiagonals()) {
            return upload(limbs);
        }
        ring.toMontgomery(limbs, limbs.length - 1 - ring.pCount());
        return of(limbs);
    }

    @Override
    public RnsPoly[] diagonalsRescale(
            RnsPoly c0,
            RnsPoly c1,
            SwitchingKey[] babyKeys,
            Automorphism[] babyAutos,
            RnsPoly[][] diagonals,
            SwitchingKey[] giantKeys,
            Automorphism[] giantAutos,
            int level) {
        if (!hoistsDiagonals()) {
            return RingExecutor.super.diagonalsRescale(
                    c0, c1, babyKeys, babyAutos, diagonals, giantKeys, giantAutos, level);
        }
        long[][][][] d = new long[diagonals.length][][][];
        for (int g = 0; g < d.length; g++) {
            d[g] = new long[diagonals[g].length][][];
            for (int b = 0; b < d[g].length; b++) {
                d[g][b] = diagonals[g][b] == null ? null : l(diagonals[g][b]);
            }
        }
        return of(switcher.diagonalsRescaled(l(c0), l(c1), babyKeys, babyAutos, d, giantKeys, giantAutos, level));
    }

    @Override
    public RnsPoly[] switchAtLevelZero(RnsPoly d, SwitchingKey key) {
        return of(switcher.switchAtLevelZero(l(d), key));
    }

    @Override
    public RnsPoly modRaise(RnsPoly levelZero, int top) {
        return of(modRaise.raise(l(levelZero)[0], top));
    }

    @Override
    public Runnable nttOfOneLimb() {
        var ntt = ring.ntt(0);
        long[] limb = new long[ring.n()];
        for (int i = 0; i < limb.length; i++) {
            limb[i] = (i * 0x9E3779B97F4A7C15L >>> 8) % ntt.modulus().value();
        }
        return () -> ntt.forward(limb);
    }

    /** The limb pool belongs to the context. */
    @Override
    public void close() {}

    /** Its threads where its pool runs ciphertexts at once ({@code LimbPool.acrossCiphertexts()}), else 1. */
    @Override
    public int concurrency() {
        return ring.pool().acrossCiphertexts() ? ring.pool().threads() : 1;
    }
}
