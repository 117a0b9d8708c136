package dev.polyhe.ckks.ring;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link LimbProducts}' sums of Montgomery products on SIMD lanes ({@link Simd}), a chunk of a limb at a time: each
 * term's two products (one digit or diagonal against both key or ciphertext components) go into two small buffers
 * unreduced, four terms at most, and one pass reduces the buffers and adds them in place or where an automorphism
 * sends each coefficient (that scatter stays scalar: the API's gathers ran slower than scalar loads on JDK 17, its
 * scatters were not tried). Also sums of a ciphertext's two components times plaintexts ({@link #plainSum}). A product
 * of two variable residues has no Shoup companion, so its Montgomery reduction takes both high words, a·b's and m·q's,
 * each from four 32×32-bit products ({@link SimdModular}). One term per pass, not four in registers: four written out
 * made a method that C2 compiled into fast code in some runs and boxed vectors in others
 * (a microbenchmark: 0.45 ms against 1.0 ms scalar for four digits of a 2^16 limb, or 10 ms), while this small loop
 * compiled the same way every time (0.35 to 0.75 ms). The results are fully reduced, as the scalar loops leave them:
 * the same limbs bit for bit.
 */
final class SimdLimbProducts {
    private static final VectorSpecies<Long> SPECIES = SimdModular.SPECIES;
    private static final int LANES = SimdModular.LANES;
    private static final long LOW32 = 0xffffffffL;
    /** Coefficients per pass: both buffers stay in the first-level cache (16 KiB). */
    private static final int CHUNK = 1024;
    /** Unreduced sums in (−4q, 4q) stay inside a long (q &lt; 2^61). */
    static final int MAX_TERMS = 4;

    private static final ThreadLocal<long[][]> BUFFERS = ThreadLocal.withInitial(() -> new long[2][CHUNK]);
    /** A plaintext's chunk in Montgomery form ({@link #plainSum}). */
    private static final ThreadLocal<long[]> PLAINTEXT_CHUNK = ThreadLocal.withInitial(() -> new long[CHUNK]);
    /** {@link #tensor}'s second pair of products and its two operands' chunks in Montgomery form. */
    private static final ThreadLocal<long[][]> TENSOR_BUFFERS = ThreadLocal.withInitial(() -> new long[4][CHUNK]);

    private SimdLimbProducts() {}

    /** Whether a limb of {@code n} coefficients splits into whole vectors. */
    static boolean fits(int n) {
        return SimdModular.fits(n);
    }

    /**
     * r_v += Σ_{i<4} x_(2i+v)·y_i in place, y_i in Montgomery form: {@link LimbProducts#productSum4}, every operand in
     * [0, q).
     */
    static void diagonalSum4(Modulus m, long[][] x, long[] y0, long[] y1, long[] y2, long[] y3, long[] r0, long[] r1) {
        long q = m.value();
        long qInv = m.montgomeryInverse();
        long[][] buffers = BUFFERS.get();
        for (int from = 0; from < r0.length; from += CHUNK) {
            int len = Math.min(CHUNK, r0.length - from);
            products(q, qInv, y0, from, x[0], x[1], from, len, buffers[0], buffers[1], true);
            products(q, qInv, y1, from, x[2], x[3], from, len, buffers[0], buffers[1], false);
            products(q, qInv, y2, from, x[4], x[5], from, len, buffers[0], buffers[1], false);
            products(q, qInv, y3, from, x[6], x[7], from, len, buffers[0], buffers[1], false);
            finish(q, buffers, from, len, null, r0, r1);
        }
    }

    /**
     * o_v += Σ_{i<terms} D_(j+i)·key_(j+i)v on one limb position: in place when {@code target} is null, else at
     * target[c] (the term's automorphism); terms ≤ {@link #MAX_TERMS}, every operand in [0, q), the keys in Montgomery
     * form.
     */
    static void digitSum(
            Modulus m,
            long[][][] digits,
            long[][][][] key,
            int j,
            int terms,
            int pos,
            int prime,
            int[] target,
            long[] o0,
            long[] o1) {
        long q = m.value();
        long qInv = m.montgomeryInverse();
        long[][] buffers = BUFFERS.get();
        for (int from = 0; from < o0.length; from += CHUNK) {
            int len = Math.min(CHUNK, o0.length - from);
            for (int i = 0; i < terms; i++) {
                long[][][] k = key[j + i];
                products(
                        q,
                        qInv,
                        digits[j + i][pos],
                        from,
                        k[0][prime],
                        k[1][prime],
                        from,
                        len,
                        buffers[0],
                        buffers[1],
                        i == 0);
            }
            finish(q, buffers, from, len, target, o0, o1);
        }
    }

    /** o0 += d·b and o1 += d·a in place, every operand in [0, q), b and a (or d) in Montgomery form. */
    static void single(Modulus m, long[] d, long[] b, long[] a, long[] o0, long[] o1) {
        long q = m.value();
        long qInv = m.montgomeryInverse();
        long[][] buffers = BUFFERS.get();
        for (int from = 0; from < o0.length; from += CHUNK) {
            int len = Math.min(CHUNK, o0.length - from);
            products(q, qInv, d, from, b, a, from, len, buffers[0], buffers[1], true);
            finish(q, buffers, from, len, null, o0, o1);
        }
    }

    /** Adds the chunk's unreduced sums into r0 and r1, in place or at target[c]. */
    private static void finish(long q, long[][] buffers, int from, int len, int[] target, long[] r0, long[] r1) {
        long[] s0 = buffers[0];
        long[] s1 = buffers[1];
        if (target == null) {
            reduceAdd(q, s0, len, r0, from);
            reduceAdd(q, s1, len, r1, from);
            return;
        }
        reduce(q, s0, len);
        reduce(q, s1, len);
        for (int k = 0; k < len; k++) {
            int at = target[from + k];
            long v0 = r0[at] + s0[k] - q;
            r0[at] = v0 + ((v0 >> 63) & q);
            long v1 = r1[at] + s1[k] - q;
            r1[at] = v1 + ((v1 >> 63) & q);
        }
    }

    /**
     * s0[k] (+)= d·b·2^-64 mod q and s1[k] (+)= d·a·2^-64 mod q at coefficient from + k of b and a (dFrom + k of d),
     * each product in (−q, q):
     * hi(d·b) − hi(m·q) with m = (d·b mod 2^64)·q^-1 mod 2^64, whose low words cancel.
     */
    private static void products(
            long q,
            long qInverse,
            long[] d,
            int dFrom,
            long[] b,
            long[] a,
            int from,
            int len,
            long[] s0,
            long[] s1,
            boolean first) {
        LongVector qInv = LongVector.broadcast(SPECIES, qInverse);
        LongVector qLow = LongVector.broadcast(SPECIES, q & LOW32);
        LongVector qHigh = LongVector.broadcast(SPECIES, q >>> 32);
        // the first term overwrites the buffers: a branch in the loop would merge vectors, which C2 then boxes
        LongVector kept = LongVector.broadcast(SPECIES, first ? 0L : -1L);
        for (int k = 0; k < len; k += LANES) {
            int c = from + k;
            LongVector x = LongVector.fromArray(SPECIES, d, dFrom + k);
            LongVector xLow = x.and(LOW32);
            LongVector xHigh = x.lanewise(VectorOperators.LSHR, 32);
            {
                LongVector y = LongVector.fromArray(SPECIES, b, c);
                LongVector yLow = y.and(LOW32);
                LongVector yHigh = y.lanewise(VectorOperators.LSHR, 32);
                LongVector lh = xLow.mul(yHigh);
                LongVector hl = xHigh.mul(yLow);
                LongVector high = xHigh.mul(yHigh)
                        .add(lh.lanewise(VectorOperators.LSHR, 32))
                        .add(hl.lanewise(VectorOperators.LSHR, 32))
                        .add(xLow.mul(yLow)
                                .lanewise(VectorOperators.LSHR, 32)
                                .add(lh.and(LOW32))
                                .add(hl.and(LOW32))
                                .lanewise(VectorOperators.LSHR, 32));
                LongVector mm = x.mul(y).mul(qInv);
                LongVector mLow = mm.and(LOW32);
                LongVector mHigh = mm.lanewise(VectorOperators.LSHR, 32);
                LongVector mlh = mLow.mul(qHigh);
                LongVector mhl = mHigh.mul(qLow);
                LongVector mq = mHigh.mul(qHigh)
                        .add(mlh.lanewise(VectorOperators.LSHR, 32))
                        .add(mhl.lanewise(VectorOperators.LSHR, 32))
                        .add(mLow.mul(qLow)
                                .lanewise(VectorOperators.LSHR, 32)
                                .add(mlh.and(LOW32))
                                .add(mhl.and(LOW32))
                                .lanewise(VectorOperators.LSHR, 32));
                LongVector p = high.sub(mq);
                p.add(LongVector.fromArray(SPECIES, s0, k).and(kept)).intoArray(s0, k);
            }
            {
                LongVector y = LongVector.fromArray(SPECIES, a, c);
                LongVector yLow = y.and(LOW32);
                LongVector yHigh = y.lanewise(VectorOperators.LSHR, 32);
                LongVector lh = xLow.mul(yHigh);
                LongVector hl = xHigh.mul(yLow);
                LongVector high = xHigh.mul(yHigh)
                        .add(lh.lanewise(VectorOperators.LSHR, 32))
                        .add(hl.lanewise(VectorOperators.LSHR, 32))
                        .add(xLow.mul(yLow)
                                .lanewise(VectorOperators.LSHR, 32)
                                .add(lh.and(LOW32))
                                .add(hl.and(LOW32))
                                .lanewise(VectorOperators.LSHR, 32));
                LongVector mm = x.mul(y).mul(qInv);
                LongVector mLow = mm.and(LOW32);
                LongVector mHigh = mm.lanewise(VectorOperators.LSHR, 32);
                LongVector mlh = mLow.mul(qHigh);
                LongVector mhl = mHigh.mul(qLow);
                LongVector mq = mHigh.mul(qHigh)
                        .add(mlh.lanewise(VectorOperators.LSHR, 32))
                        .add(mhl.lanewise(VectorOperators.LSHR, 32))
                        .add(mLow.mul(qLow)
                                .lanewise(VectorOperators.LSHR, 32)
                                .add(mlh.and(LOW32))
                                .add(mhl.and(LOW32))
                                .lanewise(VectorOperators.LSHR, 32));
                LongVector p = high.sub(mq);
                p.add(LongVector.fromArray(SPECIES, s1, k).and(kept)).intoArray(s1, k);
            }
        }
    }

    /**
     * r_v = (s_v + Σ_t x_v[t]·y[t]) mod q for v = 0, 1 ({@link RnsArithmetic#multiplyPairSum}), every operand in
     * [0, q), the plaintexts y[t] not in Montgomery form, s_v null for none (it may be r_v): a chunk at a time, each
     * plaintext chunk taken to Montgomery form by Shoup's product with R = 2^64 mod q, then {@link #products} into the
     * two buffers, reduced every third term; the sum is read and written once for all the terms.
     */
    static void plainSum(Modulus m, long[][] x0, long[][] x1, long[][] y, long[] s0, long[] s1, long[] r0, long[] r1) {
        long q = m.value();
        long qInv = m.montgomeryInverse();
        long radix = m.montgomeryRadix();
        long radixShoup = m.shoup(radix);
        long[][] buffers = BUFFERS.get();
        long[] montgomery = PLAINTEXT_CHUNK.get();
        for (int from = 0; from < r0.length; from += CHUNK) {
            int len = Math.min(CHUNK, r0.length - from);
            for (int t = 0; t < y.length; t++) {
                if (t > 0 && t % 3 == 0) {
                    // [0, q) plus three products in (−q, q) stays inside (−4q, 4q)
                    reduce(q, buffers[0], len);
                    reduce(q, buffers[1], len);
                }
                toMontgomery(q, radix, radixShoup, y[t], from, len, montgomery);
                products(q, qInv, montgomery, 0, x0[t], x1[t], from, len, buffers[0], buffers[1], t == 0);
            }
            if (s0 == null) {
                reduceTo(q, buffers[0], len, r0, from);
                reduceTo(q, buffers[1], len, r1, from);
            } else {
                reduceAddTo(q, buffers[0], len, s0, r0, from);
                reduceAddTo(q, buffers[1], len, s1, r1, from);
            }
        }
    }

    /**
     * (a0, a1) ⊗ (b0, b1) = {a0·b0, a0·b1 + a1·b0, a1·b1} mod q ({@link RnsArithmetic#tensor}), every operand in
     * [0, q), none in Montgomery form: a chunk of a0 and a1 taken to Montgomery form, then {@link #products} against
     * b0 and b1.
     */
    static void tensor(Modulus m, long[] a0, long[] a1, long[] b0, long[] b1, long[] r0, long[] r1, long[] r2) {
        long q = m.value();
        long qInv = m.montgomeryInverse();
        long radix = m.montgomeryRadix();
        long radixShoup = m.shoup(radix);
        long[][] s = BUFFERS.get();
        long[][] t = TENSOR_BUFFERS.get();
        for (int from = 0; from < r0.length; from += CHUNK) {
            int len = Math.min(CHUNK, r0.length - from);
            toMontgomery(q, radix, radixShoup, a0, from, len, t[2]);
            toMontgomery(q, radix, radixShoup, a1, from, len, t[3]);
            products(q, qInv, t[2], 0, b0, b1, from, len, s[0], s[1], true);
            products(q, qInv, t[3], 0, b0, b1, from, len, t[0], t[1], true);
            for (int k = 0; k < len; k += LANES) {
                // two products in (−q, q): (−2q, 2q), inside what the reduction takes
                LongVector.fromArray(SPECIES, s[1], k)
                        .add(LongVector.fromArray(SPECIES, t[0], k))
                        .intoArray(s[1], k);
            }
            reduceTo(q, s[0], len, r0, from);
            reduceTo(q, s[1], len, r1, from);
            reduceTo(q, t[1], len, r2, from);
        }
    }

    /** u[k] = y[from + k]·R mod q in [0, q): Shoup's product with the constant R = 2^64 mod q. */
    private static void toMontgomery(long q, long radix, long radixShoup, long[] y, int from, int len, long[] u) {
        LongVector vq = LongVector.broadcast(SPECIES, q);
        LongVector rsLow = LongVector.broadcast(SPECIES, radixShoup & LOW32);
        LongVector rsHigh = LongVector.broadcast(SPECIES, radixShoup >>> 32);
        for (int k = 0; k < len; k += LANES) {
            LongVector v = LongVector.fromArray(SPECIES, y, from + k);
            LongVector vLow = v.and(LOW32);
            LongVector vHigh = v.lanewise(VectorOperators.LSHR, 32);
            LongVector vlh = vLow.mul(rsHigh);
            LongVector vhl = vHigh.mul(rsLow);
            LongVector quotient = vHigh.mul(rsHigh)
                    .add(vlh.lanewise(VectorOperators.LSHR, 32))
                    .add(vhl.lanewise(VectorOperators.LSHR, 32))
                    .add(vLow.mul(rsLow)
                            .lanewise(VectorOperators.LSHR, 32)
                            .add(vlh.and(LOW32))
                            .add(vhl.and(LOW32))
                            .lanewise(VectorOperators.LSHR, 32));
            LongVector w = v.mul(radix).sub(quotient.mul(vq)); // [0, 2q)
            w.sub(vq, w.compare(VectorOperators.GE, vq)).intoArray(u, k);
        }
    }

    /** o[from + k] = s[k] mod q for unreduced sums s in (−4q, 4q). */
    private static void reduceTo(long q, long[] s, int len, long[] o, int from) {
        LongVector vq = LongVector.broadcast(SPECIES, q);
        LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
        LongVector fourQ = LongVector.broadcast(SPECIES, 4 * q);
        for (int k = 0; k < len; k += LANES) {
            LongVector v = LongVector.fromArray(SPECIES, s, k);
            v = v.add(v.lanewise(VectorOperators.ASHR, 63).and(fourQ));
            v = v.sub(twoQ, v.compare(VectorOperators.GE, twoQ));
            v.sub(vq, v.compare(VectorOperators.GE, vq)).intoArray(o, from + k);
        }
    }

    /** o[from + k] = (t[from + k] + s[k]) mod q for unreduced sums s in (−4q, 4q); t may be o. */
    private static void reduceAddTo(long q, long[] s, int len, long[] t, long[] o, int from) {
        LongVector vq = LongVector.broadcast(SPECIES, q);
        LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
        LongVector fourQ = LongVector.broadcast(SPECIES, 4 * q);
        for (int k = 0; k < len; k += LANES) {
            LongVector v = LongVector.fromArray(SPECIES, s, k);
            v = v.add(v.lanewise(VectorOperators.ASHR, 63).and(fourQ));
            v = v.sub(twoQ, v.compare(VectorOperators.GE, twoQ));
            v = v.sub(vq, v.compare(VectorOperators.GE, vq));
            v = v.add(LongVector.fromArray(SPECIES, t, from + k));
            v.sub(vq, v.compare(VectorOperators.GE, vq)).intoArray(o, from + k);
        }
    }

    /** o[from + k] = (o[from + k] + s[k]) mod q for unreduced sums s in (−4q, 4q). */
    private static void reduceAdd(long q, long[] s, int len, long[] o, int from) {
        LongVector vq = LongVector.broadcast(SPECIES, q);
        LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
        LongVector fourQ = LongVector.broadcast(SPECIES, 4 * q);
        for (int k = 0; k < len; k += LANES) {
            LongVector v = LongVector.fromArray(SPECIES, s, k);
            v = v.add(v.lanewise(VectorOperators.ASHR, 63).and(fourQ)); // [0, 4q)
            v = v.sub(twoQ, v.compare(VectorOperators.GE, twoQ));
            v = v.sub(vq, v.compare(VectorOperators.GE, vq));
            v = v.add(LongVector.fromArray(SPECIES, o, from + k));
            v.sub(vq, v.compare(VectorOperators.GE, vq)).intoArray(o, from + k);
        }
    }

    /** s[k] mod q in [0, q), in place, for unreduced sums in (−4q, 4q). */
    private static void reduce(long q, long[] s, int len) {
        LongVector vq = LongVector.broadcast(SPECIES, q);
        LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
        LongVector fourQ = LongVector.broadcast(SPECIES, 4 * q);
        for (int k = 0; k < len; k += LANES) {
            LongVector v = LongVector.fromArray(SPECIES, s, k);
            v = v.add(v.lanewise(VectorOperators.ASHR, 63).and(fourQ));
            v = v.sub(twoQ, v.compare(VectorOperators.GE, twoQ));
            v.sub(vq, v.compare(VectorOperators.GE, vq)).intoArray(s, k);
        }
    }
}
