package dev.polyhe.ckks.ring;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Modular arithmetic on SIMD lanes of longs for the ring's vector kernels ({@link Simd}): lanes have no 64×64→128
 * product, so a product's high word is assembled from four 32×32-bit ones, exact for unsigned operands below 2^64.
 * With it, Shoup's product by a constant and Barrett's reduction run as they do on a scalar core. The kernels write
 * their reductions out rather than call helpers taking masks: C2 then keeps every vector in registers (a helper
 * measured 2.6 times slower than the scalar loop it replaced). The helpers that pass vectors ({@link #highWord},
 * {@link #low}, {@link #high}) must be inlined into the kernels' loops, which {@code config/simd-inlining.args} forces
 * (a JVM that compiled one on its own first would not inline it, and its vectors would live on the heap).
 */
final class SimdModular {
    static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_PREFERRED;
    static final int LANES = SPECIES.length();
    private static final long LOW32 = 0xffffffffL;

    private SimdModular() {}

    /** Whether a limb of {@code n} coefficients splits into whole vectors. */
    static boolean fits(int n) {
        return n % LANES == 0;
    }

    /** ⌊y·s / 2^64⌋ for unsigned y and s = sHigh·2^32 + sLow (each half broadcast or per lane). */
    static LongVector highWord(LongVector y, LongVector sLow, LongVector sHigh) {
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

    /** out[c] = x[c]·w mod q in [0, q): Shoup's product, {@link Modulus#mulShoup}'s values bit for bit. */
    static void timesConstant(long[] x, long w, long wShoup, long q, long[] out) {
        LongVector vq = LongVector.broadcast(SPECIES, q);
        LongVector sLow = low(wShoup);
        LongVector sHigh = high(wShoup);
        for (int c = 0; c < x.length; c += LANES) {
            LongVector y = LongVector.fromArray(SPECIES, x, c);
            LongVector r = y.mul(w).sub(highWord(y, sLow, sHigh).mul(vq)); // [0, 2q)
            r.sub(vq, r.compare(VectorOperators.GE, vq)).intoArray(out, c);
        }
    }

    /** The low half of a constant, broadcast. */
    static LongVector low(long s) {
        return LongVector.broadcast(SPECIES, s & LOW32);
    }

    /** The high half of a constant, broadcast. */
    static LongVector high(long s) {
        return LongVector.broadcast(SPECIES, s >>> 32);
    }

    /**
     * out[c] = x[c] mod q in [0, q) for signed x[c] (|x| &lt; 2^63): Barrett's reduction of |x| by ⌊2^64/q⌋, the sign
     * put back. {@link Modulus#reduceSigned}'s residues, bit for bit.
     */
    static void residues(long[] x, Modulus m, long[] out) {
        long q = m.value();
        LongVector vq = LongVector.broadcast(SPECIES, q);
        LongVector bLow = low(m.barrettFactor());
        LongVector bHigh = high(m.barrettFactor());
        for (int c = 0; c < x.length; c += LANES) {
            LongVector v = LongVector.fromArray(SPECIES, x, c);
            VectorMask<Long> negative = v.compare(VectorOperators.LT, 0);
            LongVector a = v.lanewise(VectorOperators.ABS);
            LongVector r = a.sub(highWord(a, bLow, bHigh).mul(vq)); // [0, 2q)
            r = r.sub(vq, r.compare(VectorOperators.GE, vq));
            LongVector signed = r.blend(vq.sub(r), negative); // (0, q] where negative
            signed.sub(vq, signed.compare(VectorOperators.GE, vq)).intoArray(out, c);
        }
    }
}
