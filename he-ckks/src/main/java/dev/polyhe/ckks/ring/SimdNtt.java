package dev.polyhe.ckks.ring;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The NTT's wide layers on SIMD lanes (the JDK's Vector API): every layer whose butterflies pair slots at least one
 * vector apart runs a vector of butterflies at once, with one twiddle broadcast over the lanes; the narrow layers
 * below a vector stay scalar ({@link NttTables}). The butterflies are Harvey's, as in {@link NttTables}, and the
 * results are fully reduced at the end, so both give the same limbs bit for bit.
 *
 * <p>The high word of y·w' (w' the twiddle's Shoup companion) comes from {@link SimdModular#highWord}. Loaded only
 * where {@link Simd#available()} says the module is readable; used from N = {@link #MIN_SIZE} up (tests on small rings
 * keep the scalar path).
 */
final class SimdNtt {
    private static final VectorSpecies<Long> SPECIES = SimdModular.SPECIES;
    private static final int LANES = SimdModular.LANES;
    /** Below this ring degree the scalar transform is used: vectors pay off on wide layers only. */
    static final int MIN_SIZE = 1 << 11;

    private SimdNtt() {}

    /** The lanes of the preferred vector shape (4 with AVX2, 8 with AVX-512). */
    static int lanes() {
        return LANES;
    }

    /**
     * The forward layers while the butterflies' span t is at least a vector, in place: a in [0, 4q) in and out,
     * as the scalar layers keep it. Returns the span of the first layer left to do (the scalar one).
     */
    static int forwardWide(long[] a, int n, long q, long[] w, long[] ws) {
        LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
        LongVector vq = LongVector.broadcast(SPECIES, q);
        int t = n >>> 1;
        for (int m = 1; t >= LANES; m <<= 1, t >>>= 1) {
            for (int i = 0; i < m; i++) {
                int j1 = 2 * i * t;
                LongVector wi = LongVector.broadcast(SPECIES, w[m + i]);
                long s = ws[m + i];
                LongVector sLow = SimdModular.low(s);
                LongVector sHigh = SimdModular.high(s);
                for (int j = j1; j < j1 + t; j += LANES) {
                    LongVector x = LongVector.fromArray(SPECIES, a, j);
                    LongVector y = LongVector.fromArray(SPECIES, a, j + t);
                    x = x.sub(twoQ, x.compare(VectorOperators.GE, twoQ)); // [0, 2q)
                    LongVector v =
                            y.mul(wi).sub(SimdModular.highWord(y, sLow, sHigh).mul(vq)); // y·w mod q in [0, 2q)
                    x.add(v).intoArray(a, j);
                    x.sub(v).add(twoQ).intoArray(a, j + t);
                }
            }
        }
        return t;
    }

    /**
     * The inverse layers from span {@code t} (at least a vector) up to N/4, in place on values in [0, 2q): the
     * Gentleman–Sande butterflies of {@link NttTables#inverse}, its first, narrow layers done before and its last,
     * with N^-1 folded in, after ({@link #inverseLast}).
     */
    static void inverseWide(long[] a, int n, int t, long q, long[] w, long[] ws) {
        LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
        LongVector vq = LongVector.broadcast(SPECIES, q);
        for (int h = n / (2 * t); h > 1; h >>>= 1, t <<= 1) {
            for (int i = 0; i < h; i++) {
                int j1 = 2 * i * t;
                LongVector wi = LongVector.broadcast(SPECIES, w[h + i]);
                long s = ws[h + i];
                LongVector sLow = SimdModular.low(s);
                LongVector sHigh = SimdModular.high(s);
                for (int j = j1; j < j1 + t; j += LANES) {
                    LongVector x = LongVector.fromArray(SPECIES, a, j);
                    LongVector y = LongVector.fromArray(SPECIES, a, j + t);
                    LongVector sum = x.add(y);
                    sum.sub(twoQ, sum.compare(VectorOperators.GE, twoQ)).intoArray(a, j);
                    LongVector d = x.sub(y).add(twoQ);
                    d.mul(wi).sub(SimdModular.highWord(d, sLow, sHigh).mul(vq)).intoArray(a, j + t);
                }
            }
        }
    }

    /**
     * The inverse's last layer (span N/2, one twiddle) with N^-1 folded in, as {@link NttTables#inverse} does it: a in
     * [0, 2q) in, [0, q) out. {@code nInv} and {@code lastInv} come with their Shoup companions.
     */
    static void inverseLast(long[] a, int n, long q, long nInv, long nInvShoup, long lastInv, long lastInvShoup) {
        LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
        LongVector vq = LongVector.broadcast(SPECIES, q);
        LongVector ni = LongVector.broadcast(SPECIES, nInv);
        LongVector niLow = SimdModular.low(nInvShoup);
        LongVector niHigh = SimdModular.high(nInvShoup);
        LongVector li = LongVector.broadcast(SPECIES, lastInv);
        LongVector liLow = SimdModular.low(lastInvShoup);
        LongVector liHigh = SimdModular.high(lastInvShoup);
        int half = n >>> 1;
        for (int j = 0; j < half; j += LANES) {
            LongVector x = LongVector.fromArray(SPECIES, a, j);
            LongVector y = LongVector.fromArray(SPECIES, a, j + half);
            LongVector s = x.add(y);
            LongVector d = x.sub(y).add(twoQ);
            LongVector r0 = s.mul(ni).sub(SimdModular.highWord(s, niLow, niHigh).mul(vq));
            LongVector r1 = d.mul(li).sub(SimdModular.highWord(d, liLow, liHigh).mul(vq));
            r0.sub(vq, r0.compare(VectorOperators.GE, vq)).intoArray(a, j);
            r1.sub(vq, r1.compare(VectorOperators.GE, vq)).intoArray(a, j + half);
        }
    }
}
