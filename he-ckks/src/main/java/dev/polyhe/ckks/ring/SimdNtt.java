package dev.polyhe.ckks.ring;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The NTT on SIMD lanes (the JDK's Vector API). A wide layer, whose butterflies pair slots at least one vector apart,
 * runs a vector of butterflies at once with one twiddle broadcast over the lanes. A narrow layer (span t below a
 * vector) takes two adjacent vectors A, B and gathers the butterflies' upper halves into one vector and the lower
 * halves into another by rotating the lanes by t and blending (lane i of A where bit t of i is clear, B's lane i − t
 * where it is set); its twiddles are the next few of the ordinary table, put in that lane order by a shuffle (tables
 * laid out in lane order cost 4.7 MB a prime, which a run cycling through its primes then read from memory). One
 * pass a layer: a pass doing all three in registers ran slower (C2 then spills the shuffles and masks). The
 * butterflies are Harvey's, as in {@link NttTables}, and the results are fully reduced at the end, so both give the
 * same limbs bit for bit.
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

    /** Lane i from lane i − t (DOWN) or i + t (UP), and the lanes whose bit t is set or clear: [log2 t]. */
    private static final VectorShuffle<Long>[] DOWN = shuffles(-1);

    private static final VectorShuffle<Long>[] UP = shuffles(1);
    private static final VectorMask<Long>[] SET = masks(true);
    private static final VectorMask<Long>[] CLEAR = masks(false);

    /** The lanes of the preferred vector shape (4 with AVX2, 8 with AVX-512). */
    static int lanes() {
        return LANES;
    }

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Long>[] shuffles(int direction) {
        VectorShuffle<Long>[] s = new VectorShuffle[Integer.numberOfTrailingZeros(LANES)];
        for (int b = 0; b < s.length; b++) {
            int t = 1 << b;
            s[b] = VectorShuffle.fromOp(SPECIES, i -> Math.floorMod(i + direction * t, LANES));
        }
        return s;
    }

    @SuppressWarnings("unchecked")
    private static VectorMask<Long>[] masks(boolean set) {
        VectorMask<Long>[] m = new VectorMask[Integer.numberOfTrailingZeros(LANES)];
        for (int b = 0; b < m.length; b++) {
            boolean[] lanes = new boolean[LANES];
            for (int i = 0; i < LANES; i++) {
                lanes[i] = ((i >> b & 1) == 1) == set;
            }
            m[b] = VectorMask.fromArray(SPECIES, lanes, 0);
        }
        return m;
    }

    /**
     * Lane i of the upper-half vector of a narrow layer of span 2^b reads twiddle {@code TWIDDLE[b]}[i] places past
     * the pair of vectors' first one: lane i holds slot i (bit b clear) or L + i − 2^b (set) of the pair, whose
     * butterfly's twiddle is its slot / 2^(b+1) in the layer's run of twiddles.
     */
    private static final VectorShuffle<Long>[] TWIDDLE = twiddleShuffles();

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Long>[] twiddleShuffles() {
        VectorShuffle<Long>[] s = new VectorShuffle[Integer.numberOfTrailingZeros(LANES)];
        for (int b = 0; b < s.length; b++) {
            int t = 1 << b;
            s[b] = VectorShuffle.fromOp(SPECIES, i -> ((i & t) == 0 ? i : LANES + i - t) / (2 * t));
        }
        return s;
    }

    /**
     * The forward layers of spans L/2 .. 1, after {@link #forwardWide}: a in [0, 4q) in, fully reduced to [0, q) out.
     * Twiddles as {@link NttTables} holds them (bit-reversed, with Shoup companions).
     */
    static void forwardNarrow(long[] a, int n, long q, long[] w, long[] ws) {
        for (int b = Integer.numberOfTrailingZeros(LANES) - 1; b >= 0; b--) {
            forwardNarrowLayer(a, n, q, w, ws, b);
        }
    }

    private static void forwardNarrowLayer(long[] a, int n, long q, long[] w, long[] ws, int b) {
        int t = 1 << b;
        VectorShuffle<Long> down = DOWN[b];
        VectorShuffle<Long> up = UP[b];
        VectorMask<Long> set = SET[b];
        VectorMask<Long> clear = CLEAR[b];
        VectorShuffle<Long> twiddle = TWIDDLE[b];
        boolean last = b == 0;
        LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
        LongVector vq = LongVector.broadcast(SPECIES, q);
        int perPair = LANES / t; // twiddles a pair of vectors uses
        for (int j = 0, k = n / (2 * t); j < n; j += 2 * LANES, k += perPair) {
            LongVector va = LongVector.fromArray(SPECIES, a, j);
            LongVector vb = LongVector.fromArray(SPECIES, a, j + LANES);
            LongVector x = va.blend(vb.rearrange(down), set);
            LongVector y = vb.blend(va.rearrange(up), clear);
            LongVector wi = LongVector.fromArray(SPECIES, w, k).rearrange(twiddle);
            LongVector si = LongVector.fromArray(SPECIES, ws, k).rearrange(twiddle);
            x = x.sub(twoQ, x.compare(VectorOperators.GE, twoQ)); // [0, 2q)
            LongVector hw = SimdModular.highWord(y, si.and(0xffffffffL), si.lanewise(VectorOperators.LSHR, 32));
            LongVector v = y.mul(wi).sub(hw.mul(vq)); // [0, 2q)
            LongVector u = x.add(v);
            LongVector d = x.sub(v).add(twoQ);
            if (last) {
                u = u.sub(twoQ, u.compare(VectorOperators.GE, twoQ));
                u = u.sub(vq, u.compare(VectorOperators.GE, vq));
                d = d.sub(twoQ, d.compare(VectorOperators.GE, twoQ));
                d = d.sub(vq, d.compare(VectorOperators.GE, vq));
            }
            u.blend(d.rearrange(down), set).intoArray(a, j);
            d.blend(u.rearrange(up), clear).intoArray(a, j + LANES);
        }
    }

    /**
     * The inverse layers of spans 1 .. L/2, before {@link #inverseWide}: a in [0, 2q) in and out. Twiddles as
     * {@link NttTables} holds them.
     */
    static void inverseNarrow(long[] a, int n, long q, long[] w, long[] ws) {
        for (int b = 0; b < Integer.numberOfTrailingZeros(LANES); b++) {
            inverseNarrowLayer(a, n, q, w, ws, b);
        }
    }

    private static void inverseNarrowLayer(long[] a, int n, long q, long[] w, long[] ws, int b) {
        int t = 1 << b;
        VectorShuffle<Long> down = DOWN[b];
        VectorShuffle<Long> up = UP[b];
        VectorMask<Long> set = SET[b];
        VectorMask<Long> clear = CLEAR[b];
        VectorShuffle<Long> twiddle = TWIDDLE[b];
        LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
        LongVector vq = LongVector.broadcast(SPECIES, q);
        int perPair = LANES / t;
        for (int j = 0, k = n / (2 * t); j < n; j += 2 * LANES, k += perPair) {
            LongVector va = LongVector.fromArray(SPECIES, a, j);
            LongVector vb = LongVector.fromArray(SPECIES, a, j + LANES);
            LongVector x = va.blend(vb.rearrange(down), set);
            LongVector y = vb.blend(va.rearrange(up), clear);
            LongVector wi = LongVector.fromArray(SPECIES, w, k).rearrange(twiddle);
            LongVector si = LongVector.fromArray(SPECIES, ws, k).rearrange(twiddle);
            LongVector sum = x.add(y);
            sum = sum.sub(twoQ, sum.compare(VectorOperators.GE, twoQ));
            LongVector d = x.sub(y).add(twoQ);
            LongVector hw = SimdModular.highWord(d, si.and(0xffffffffL), si.lanewise(VectorOperators.LSHR, 32));
            LongVector r = d.mul(wi).sub(hw.mul(vq));
            sum.blend(r.rearrange(down), set).intoArray(a, j);
            r.blend(sum.rearrange(up), clear).intoArray(a, j + LANES);
        }
    }

    /**
     * The forward layers while the butterflies' span t is at least a vector, in place: a in [0, 4q) in and out,
     * as the scalar layers keep it; {@link #forwardNarrow} does the rest.
     */
    static void forwardWide(long[] a, int n, long q, long[] w, long[] ws) {
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
    }

    /**
     * The inverse layers from span {@code t} (at least a vector) up to N/4, in place on values in [0, 2q): the
     * Gentleman–Sande butterflies of {@link NttTables#inverse}, its first, narrow layers done before
     * ({@link #inverseNarrow}) and its last, with N^-1 folded in, after ({@link #inverseLast}).
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
