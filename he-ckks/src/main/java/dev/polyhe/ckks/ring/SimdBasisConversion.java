package dev.polyhe.ckks.ring;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link BasisConverter#accumulateTarget}'s sum on SIMD lanes ({@link Simd}): each signed y_j times the constant
 * (Q/q_j) mod p by Shoup's product on |y_j| (its high word from {@link SimdModular#highWord}), the
 * sign put back as p − r, four such terms (each below p) summed and reduced once. The result is fully reduced, as
 * the scalar loops leave it: the same limb bit for bit.
 */
final class SimdBasisConversion {
    private static final VectorSpecies<Long> SPECIES = SimdModular.SPECIES;
    private static final int LANES = SimdModular.LANES;

    private SimdBasisConversion() {}

    /** Whether a limb of {@code n} coefficients splits into whole vectors. */
    static boolean fits(int n) {
        return SimdModular.fits(n);
    }

    /**
     * out = Σ_j y_j · w_j mod p over the sources j, in [0, p): {@code w} the plain constants (below p), {@code wShoup}
     * their Shoup companions modulo p, {@code scaled} the signed y_j (|y_j| &lt; 2^62).
     */
    static void accumulate(long p, long[][] scaled, long[] w, long[] wShoup, long[] out) {
        LongVector vp = LongVector.broadcast(SPECIES, p);
        LongVector twoP = LongVector.broadcast(SPECIES, 2 * p);
        LongVector zero = LongVector.zero(SPECIES);
        int s = scaled.length;
        for (int g = 0; g < s; g += 4) {
            int end = Math.min(s, g + 4);
            boolean first = g == 0;
            for (int c = 0; c < out.length; c += LANES) {
                // four terms in [0, p) stay below 4p < 2^63, then [0, p). One call site, not two: C2 stops
                // inlining past a count of nodes that two copies of the vector code sometimes reached, leaving the
                // second call's vectors on the heap (key switching twice as slow, at random from run to run)
                LongVector acc = zero;
                for (int j = g; j < end; j++) {
                    acc = acc.add(signedProduct(LongVector.fromArray(SPECIES, scaled[j], c), w[j], wShoup[j], vp));
                }
                acc = acc.sub(twoP, acc.compare(VectorOperators.GE, twoP));
                acc = acc.sub(vp, acc.compare(VectorOperators.GE, vp));
                if (!first) {
                    acc = acc.add(LongVector.fromArray(SPECIES, out, c));
                    acc = acc.sub(vp, acc.compare(VectorOperators.GE, vp));
                }
                acc.intoArray(out, c);
            }
        }
    }

    /**
     * {@link BasisConverter#scaleSource}: scaled[c] = x[c]·w mod q centred into (−q/2, q/2], x in [0, q), w with its
     * Shoup companion.
     */
    static void scale(long[] x, long q, long w, long ws, long[] scaled) {
        LongVector vq = LongVector.broadcast(SPECIES, q);
        LongVector half = LongVector.broadcast(SPECIES, q >>> 1);
        LongVector wsLow = SimdModular.low(ws);
        LongVector wsHigh = SimdModular.high(ws);
        for (int c = 0; c < x.length; c += LANES) {
            LongVector v = LongVector.fromArray(SPECIES, x, c);
            LongVector y = v.mul(w).sub(SimdModular.highWord(v, wsLow, wsHigh).mul(vq)); // [0, 2q)
            y = y.sub(vq, y.compare(VectorOperators.GE, vq));
            y.sub(vq, y.compare(VectorOperators.GT, half)).intoArray(scaled, c);
        }
    }

    /**
     * y·w mod p in [0, p) for signed y, from Shoup's product on |y|; inlined into {@link #accumulate}'s loop by force
     * ({@code config/simd-inlining.args}).
     */
    private static LongVector signedProduct(LongVector y, long w, long ws, LongVector p) {
        VectorMask<Long> negative = y.compare(VectorOperators.LT, 0);
        LongVector a = y.lanewise(VectorOperators.ABS);
        LongVector high = SimdModular.highWord(
                a, LongVector.broadcast(SPECIES, ws & 0xffffffffL), LongVector.broadcast(SPECIES, ws >>> 32));
        LongVector r = a.mul(w).sub(high.mul(p)); // [0, 2p)
        r = r.sub(p, r.compare(VectorOperators.GE, p));
        LongVector signed = r.blend(p.sub(r), negative); // (0, p] where negative
        return signed.sub(p, signed.compare(VectorOperators.GE, p));
    }
}
