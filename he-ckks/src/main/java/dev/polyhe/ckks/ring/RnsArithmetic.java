package dev.polyhe.ckks.ring;

/**
 * Coefficient-wise arithmetic on RNS polynomials (limbs 0..level), spread over limbs. Results are fresh
 * arrays: ciphertext limbs are shared and must never be written in place.
 */
public final class RnsArithmetic {
    /** Whether products of ciphertexts and plaintexts run on lanes ({@link SimdLimbProducts}); decided once. */
    private static final boolean SIMD = Simd.available();

    private final RnsRing ring;

    public RnsArithmetic(RnsRing ring) {
        this.ring = ring;
    }

    private static boolean lanes(int n) {
        return SIMD && SimdLimbProducts.fits(n);
    }

    public long[][] add(long[][] a, long[][] b, int level) {
        long[][] out = new long[level + 1][];
        ring.pool().forEach(level + 1, i -> {
            long q = ring.modulus(i).value();
            long[] x = a[i];
            long[] y = b[i];
            long[] r = new long[x.length];
            for (int c = 0; c < r.length; c++) {
                long s = x[c] + y[c] - q;
                r[c] = s + ((s >> 63) & q);
            }
            out[i] = r;
        });
        return out;
    }

    /** target += b, in place: only for arrays the caller owns (fresh results, never ciphertext limbs). */
    public long[][] addInto(long[][] target, long[][] b, int level) {
        ring.pool().forEach(level + 1, i -> {
            long q = ring.modulus(i).value();
            long[] x = target[i];
            long[] y = b[i];
            for (int c = 0; c < x.length; c++) {
                long s = x[c] + y[c] - q;
                x[c] = s + ((s >> 63) & q);
            }
        });
        return target;
    }

    public long[][] sub(long[][] a, long[][] b, int level) {
        long[][] out = new long[level + 1][];
        ring.pool().forEach(level + 1, i -> {
            long q = ring.modulus(i).value();
            long[] x = a[i];
            long[] y = b[i];
            long[] r = new long[x.length];
            for (int c = 0; c < r.length; c++) {
                long s = x[c] - y[c];
                r[c] = s + ((s >> 63) & q);
            }
            out[i] = r;
        });
        return out;
    }

    public long[][] negate(long[][] a, int level) {
        long[][] out = new long[level + 1][];
        ring.pool().forEach(level + 1, i -> {
            long q = ring.modulus(i).value();
            long[] x = a[i];
            long[] r = new long[x.length];
            for (int c = 0; c < r.length; c++) {
                r[c] = x[c] == 0 ? 0 : q - x[c];
            }
            out[i] = r;
        });
        return out;
    }

    /** Pointwise product (NTT form). */
    public long[][] multiply(long[][] a, long[][] b, int level) {
        long[][] out = new long[level + 1][];
        ring.pool().forEach(level + 1, i -> out[i] = multiplyLimb(i, a[i], b[i]));
        return out;
    }

    /**
     * {a0·b, a1·b} (NTT form), one pass per limb: b is taken to Montgomery form once per coefficient, so the pair
     * costs three Montgomery products where two {@link #multiply} calls cost four.
     */
    public long[][][] multiplyPair(long[][] a0, long[][] a1, long[][] b, int level) {
        return multiplyPairSum(null, null, new long[][][] {a0}, new long[][][] {a1}, new long[][][] {b}, level);
    }

    /**
     * {s0 + a0·b, s1 + a1·b} (NTT form) in one pass per limb: {@link #multiplyPair} and two additions without the
     * products' own arrays.
     */
    public long[][][] multiplyPairAdd(long[][] s0, long[][] s1, long[][] a0, long[][] a1, long[][] b, int level) {
        return multiplyPairSum(s0, s1, new long[][][] {a0}, new long[][][] {a1}, new long[][][] {b}, level);
    }

    /**
     * {s0 + Σ_t a0[t]·b[t], s1 + Σ_t a1[t]·b[t]} (NTT form), s0 and s1 null for none: ciphertexts times plaintexts
     * summed in one pass per limb, the sum read and written once for all the terms ({@link #multiplyPairAdd} reads
     * and writes it once a term).
     */
    public long[][][] multiplyPairSum(long[][] s0, long[][] s1, long[][][] a0, long[][][] a1, long[][][] b, int level) {
        int terms = b.length;
        long[][] out0 = new long[level + 1][];
        long[][] out1 = new long[level + 1][];
        ring.pool().forEach(level + 1, i -> {
            Modulus m = ring.modulus(i);
            long[][] x0 = new long[terms][];
            long[][] x1 = new long[terms][];
            long[][] y = new long[terms][];
            for (int t = 0; t < terms; t++) {
                x0[t] = a0[t][i];
                x1[t] = a1[t][i];
                y[t] = b[t][i];
            }
            int n = y[0].length;
            long[] r0 = new long[n];
            long[] r1 = new long[n];
            long[] t0 = s0 == null ? null : s0[i];
            long[] t1 = s1 == null ? null : s1[i];
            if (lanes(n)) {
                SimdLimbProducts.plainSum(m, x0, x1, y, t0, t1, r0, r1);
            } else {
                scalarPlainSum(m, x0, x1, y, t0, t1, r0, r1);
            }
            out0[i] = r0;
            out1[i] = r1;
        });
        return new long[][][] {out0, out1};
    }

    /** {@link SimdLimbProducts#plainSum}'s scalar loop: a term at a time, fully reduced after each. */
    static void scalarPlainSum(
            Modulus m, long[][] x0, long[][] x1, long[][] y, long[] s0, long[] s1, long[] r0, long[] r1) {
        long q = m.value();
        if (s0 != null) {
            System.arraycopy(s0, 0, r0, 0, r0.length);
            System.arraycopy(s1, 0, r1, 0, r1.length);
        } else {
            java.util.Arrays.fill(r0, 0);
            java.util.Arrays.fill(r1, 0);
        }
        for (int t = 0; t < y.length; t++) {
            long[] a = x0[t];
            long[] b = x1[t];
            long[] w = y[t];
            for (int c = 0; c < r0.length; c++) {
                long u = m.toMont(w[c]);
                long v0 = r0[c] + m.mulMont(a[c], u) - q;
                r0[c] = v0 + ((v0 >> 63) & q);
                long v1 = r1[c] + m.mulMont(b[c], u) - q;
                r1[c] = v1 + ((v1 >> 63) & q);
            }
        }
    }

    /** (x0, x1) ⊗ (y0, y1) = {x0·y0, x0·y1 + x1·y0, x1·y1}, one pass over each limb. */
    public long[][][] tensor(long[][] x0, long[][] x1, long[][] y0, long[][] y1, int level) {
        long[][] d0 = new long[level + 1][];
        long[][] d1 = new long[level + 1][];
        long[][] d2 = new long[level + 1][];
        ring.pool().forEach(level + 1, i -> {
            Modulus m = ring.modulus(i);
            long[] a0 = x0[i];
            long[] a1 = x1[i];
            long[] b0 = y0[i];
            long[] b1 = y1[i];
            int n = a0.length;
            long[] r0 = new long[n];
            long[] r1 = new long[n];
            long[] r2 = new long[n];
            if (lanes(n)) {
                SimdLimbProducts.tensor(m, a0, a1, b0, b1, r0, r1, r2);
            } else {
                scalarTensor(m, a0, a1, b0, b1, r0, r1, r2);
            }
            d0[i] = r0;
            d1[i] = r1;
            d2[i] = r2;
        });
        return new long[][][] {d0, d1, d2};
    }

    /** {@link SimdLimbProducts#tensor}'s scalar loop. */
    static void scalarTensor(Modulus m, long[] a0, long[] a1, long[] b0, long[] b1, long[] r0, long[] r1, long[] r2) {
        long q = m.value();
        for (int c = 0; c < r0.length; c++) {
            long u0 = m.toMont(a0[c]);
            long u1 = m.toMont(a1[c]);
            r0[c] = m.mulMont(u0, b0[c]);
            long s = m.mulMont(u0, b1[c]) + m.mulMont(u1, b0[c]) - q;
            r1[c] = s + ((s >> 63) & q);
            r2[c] = m.mulMont(u1, b1[c]);
        }
    }

    public long[] multiplyLimb(int prime, long[] x, long[] y) {
        Modulus m = ring.modulus(prime);
        long[] r = new long[x.length];
        for (int c = 0; c < r.length; c++) {
            r[c] = m.mul(x[c], y[c]);
        }
        return r;
    }

    /** Multiplies every coefficient of limb i by scalars[i] (already reduced mod q_i). */
    public long[][] multiplyScalars(long[][] a, long[] scalars, int level) {
        long[][] out = new long[level + 1][];
        ring.pool().forEach(level + 1, i -> {
            Modulus m = ring.modulus(i);
            long w = scalars[i];
            long ws = m.shoup(w);
            long[] x = a[i];
            long[] r = new long[x.length];
            if (lanes(r.length)) {
                SimdModular.timesConstant(x, w, ws, m.value(), r);
            } else {
                for (int c = 0; c < r.length; c++) {
                    r[c] = m.mulShoup(x[c], w, ws);
                }
            }
            out[i] = r;
        });
        return out;
    }

    /** Adds scalars[i] to every coefficient of limb i (a constant polynomial, in NTT form). */
    public long[][] addScalars(long[][] a, long[] scalars, int level) {
        long[][] out = new long[level + 1][];
        ring.pool().forEach(level + 1, i -> {
            long q = ring.modulus(i).value();
            long w = scalars[i];
            long[] x = a[i];
            long[] r = new long[x.length];
            for (int c = 0; c < r.length; c++) {
                long s = x[c] + w - q;
                r[c] = s + ((s >> 63) & q);
            }
            out[i] = r;
        });
        return out;
    }

    /** a(X^g) for every limb. */
    public long[][] automorphism(long[][] a, Automorphism g, int level) {
        long[][] out = new long[level + 1][];
        ring.pool().forEach(level + 1, i -> {
            long[] r = new long[a[i].length];
            g.apply(a[i], r);
            out[i] = r;
        });
        return out;
    }

    /** The first level+1 limbs (shared, not copied). */
    public static long[][] truncate(long[][] a, int level) {
        long[][] out = new long[level + 1][];
        System.arraycopy(a, 0, out, 0, level + 1);
        return out;
    }
}
