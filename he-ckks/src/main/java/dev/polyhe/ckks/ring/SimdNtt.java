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
 * <p>Lanes have no 64×64→128 product, so the high word of y·w' (w' the twiddle's Shoup companion) is assembled from
 * four 32×32 products, exact for any unsigned y and w' below 2^64. Loaded only where {@link Simd#available()} says the
 * module is readable; used from N = {@link #MIN_SIZE} up (tests on small rings keep the scalar path).
 */
final class SimdNtt {
    private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();
    private static final long LOW32 = 0xffffffffL;
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
                LongVector sLow = LongVector.broadcast(SPECIES, s & LOW32);
                LongVector sHigh = LongVector.broadcast(SPECIES, s >>> 32);
                for (int j = j1; j < j1 + t; j += LANES) {
                    LongVector x = LongVector.fromArray(SPECIES, a, j);
                    LongVector y = LongVector.fromArray(SPECIES, a, j + t);
                    x = x.sub(twoQ, x.compare(VectorOperators.GE, twoQ)); // [0, 2q)
                    LongVector v = y.mul(wi).sub(highWord(y, sLow, sHigh).mul(vq)); // y·w mod q in [0, 2q)
                    x.add(v).intoArray(a, j);
                    x.sub(v).add(twoQ).intoArray(a, j + t);
                }
            }
        }
        return t;
    }

    /**
     * The inverse layers from span {@code t} (at least a vector) up to N/4, in place on values in [0, 2q): the
     * Gentleman–Sande butterflies of {@link NttTables#inverse}, its first, narrow layers done and its last, with
     * N^-1 folded in, left to it.
     */
    static void inverseWide(long[] a, int n, int t, long q, long[] w, long[] ws) {
        LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
        LongVector vq = LongVector.broadcast(SPECIES, q);
        for (int h = n / (2 * t); h > 1; h >>>= 1, t <<= 1) {
            for (int i = 0; i < h; i++) {
                int j1 = 2 * i * t;
                LongVector wi = LongVector.broadcast(SPECIES, w[h + i]);
                long s = ws[h + i];
                LongVector sLow = LongVector.broadcast(SPECIES, s & LOW32);
                LongVector sHigh = LongVector.broadcast(SPECIES, s >>> 32);
                for (int j = j1; j < j1 + t; j += LANES) {
                    LongVector x = LongVector.fromArray(SPECIES, a, j);
                    LongVector y = LongVector.fromArray(SPECIES, a, j + t);
                    LongVector sum = x.add(y);
                    sum.sub(twoQ, sum.compare(VectorOperators.GE, twoQ)).intoArray(a, j);
                    LongVector d = x.sub(y).add(twoQ);
                    d.mul(wi).sub(highWord(d, sLow, sHigh).mul(vq)).intoArray(a, j + t);
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
        LongVector niLow = LongVector.broadcast(SPECIES, nInvShoup & LOW32);
        LongVector niHigh = LongVector.broadcast(SPECIES, nInvShoup >>> 32);
        LongVector li = LongVector.broadcast(SPECIES, lastInv);
        LongVector liLow = LongVector.broadcast(SPECIES, lastInvShoup & LOW32);
        LongVector liHigh = LongVector.broadcast(SPECIES, lastInvShoup >>> 32);
        int half = n >>> 1;
        for (int j = 0; j < half; j += LANES) {
            LongVector x = LongVector.fromArray(SPECIES, a, j);
            LongVector y = LongVector.fromArray(SPECIES, a, j + half);
            LongVector s = x.add(y);
            LongVector d = x.sub(y).add(twoQ);
            LongVector r0 = s.mul(ni).sub(highWord(s, niLow, niHigh).mul(vq));
            LongVector r1 = d.mul(li).sub(highWord(d, liLow, liHigh).mul(vq));
            r0.sub(vq, r0.compare(VectorOperators.GE, vq)).intoArray(a, j);
            r1.sub(vq, r1.compare(VectorOperators.GE, vq)).intoArray(a, j + half);
        }
    }

    /** ⌊y·s / 2^64⌋ for unsigned y and s = sHigh·2^32 + sLow, from four 32×32-bit products. */
    private static LongVector highWord(LongVector y, LongVector sLow, LongVector sHigh) {
        LongVector yLow = y.and(LOW32);
        LongVector yHigh = y.lanewise(VectorOperators.LSHR, 32);
        LongVector ll = yLow.mul(sLow);
        LongVector lh = yLow.mul(sHigh);
        LongVector hl = yHigh.mul(sLow);
        LongVector hh = yHigh.mul(sHigh);
        LongVector middle =
                ll.lanewise(VectorOperators.LSHR, 32).add(lh.and(LOW32)).add(hl.and(LOW32));
        return hh.add(lh.lanewise(VectorOperators.LSHR, 32))
                .add(hl.lanewise(VectorOperators.LSHR, 32))
                .add(middle.lanewise(VectorOperators.LSHR, 32));
    }
}
