package dev.polyhe.ckks.ring;

/**
 * The limb loops of key switching's inner products: products of RNS limbs in Montgomery form summed lazily (up to
 * four unreduced products, one reduction), then added in place or scattered where an automorphism σ sends each
 * coefficient. Flat {@code long[]} limbs, no allocation; the unrolled forms for four and two digits are what the
 * digits of a level's key come to on the presets. Callers pass one prime's limbs and its {@link Modulus}. The
 * sums of two and four run on SIMD lanes where {@link Simd} allows ({@link SimdLimbProducts}), bit for bit the scalar
 * loops' results.
 */
public final class LimbProducts {
    /** Whether the sums of two to four products run on lanes ({@link SimdLimbProducts}); decided once. */
    private static final boolean SIMD = Simd.available();

    private LimbProducts() {}

    private static boolean lanes(int n) {
        return SIMD && SimdLimbProducts.fits(n);
    }

    /** r_v += Σ_{i<4} x_(2i+v)·y_i, y_i in Montgomery form: four products, one reduction. */
    public static void productSum4(
            Modulus m, long[][] x, long[] y0, long[] y1, long[] y2, long[] y3, long[] r0, long[] r1) {
        if (lanes(r0.length)) {
            SimdLimbProducts.diagonalSum4(m, x, y0, y1, y2, y3, r0, r1);
        } else {
            scalarProductSum4(m, x, y0, y1, y2, y3, r0, r1);
        }
    }

    /** o[target[c]] += Σ_{i<4} D_(j+i)[c]·key_(j+i)[c]: four digits of one term, landing where σ sends them. */
    public static void scatter4(
            Modulus m,
            long[][][] digits,
            long[][][][] key,
            int j,
            int pos,
            int prime,
            int[] target,
            long[] o0,
            long[] o1) {
        if (lanes(o0.length)) {
            SimdLimbProducts.digitSum(m, digits, key, j, 4, pos, prime, target, o0, o1);
        } else {
            scalarScatter4(m, digits, key, j, pos, prime, target, o0, o1);
        }
    }

    /** {@link #scatter4} for two digits (the user levels of N16-boot-128 have one or two). */
    public static void scatter2(
            Modulus m,
            long[][][] digits,
            long[][][][] key,
            int j,
            int pos,
            int prime,
            int[] target,
            long[] o0,
            long[] o1) {
        if (lanes(o0.length)) {
            SimdLimbProducts.digitSum(m, digits, key, j, 2, pos, prime, target, o0, o1);
        } else {
            scalarScatter2(m, digits, key, j, pos, prime, target, o0, o1);
        }
    }

    /** o_v += Σ_{i<4} D_(j+i)·key_(j+i)v in place: four digits, one reduction. */
    public static void accumulate4(
            Modulus m, long[][][] digits, long[][][][] key, int j, int pos, int prime, long[] o0, long[] o1) {
        if (lanes(o0.length)) {
            SimdLimbProducts.digitSum(m, digits, key, j, 4, pos, prime, null, o0, o1);
        } else {
            scalarAccumulate4(m, digits, key, j, pos, prime, o0, o1);
        }
    }

    /** {@link #accumulate4} for two digits. */
    public static void accumulate2(
            Modulus m, long[][][] digits, long[][][][] key, int j, int pos, int prime, long[] o0, long[] o1) {
        if (lanes(o0.length)) {
            SimdLimbProducts.digitSum(m, digits, key, j, 2, pos, prime, null, o0, o1);
        } else {
            scalarAccumulate2(m, digits, key, j, pos, prime, o0, o1);
        }
    }

    /** {@link #productSum4} on a scalar core. */
    static void scalarProductSum4(
            Modulus m, long[][] x, long[] y0, long[] y1, long[] y2, long[] y3, long[] r0, long[] r1) {
        long q = m.value();
        long q4 = 4 * q;
        long[] x00 = x[0];
        long[] x01 = x[1];
        long[] x10 = x[2];
        long[] x11 = x[3];
        long[] x20 = x[4];
        long[] x21 = x[5];
        long[] x30 = x[6];
        long[] x31 = x[7];
        for (int c = 0; c < r0.length; c++) {
            long a = y0[c];
            long b = y1[c];
            long d = y2[c];
            long e = y3[c];
            long s0 = m.mulMontLazy(x00[c], a)
                    + m.mulMontLazy(x10[c], b)
                    + m.mulMontLazy(x20[c], d)
                    + m.mulMontLazy(x30[c], e);
            long s1 = m.mulMontLazy(x01[c], a)
                    + m.mulMontLazy(x11[c], b)
                    + m.mulMontLazy(x21[c], d)
                    + m.mulMontLazy(x31[c], e);
            long v0 = m.reduce(s0 + ((s0 >> 63) & q4)) + r0[c] - q;
            r0[c] = v0 + ((v0 >> 63) & q);
            long v1 = m.reduce(s1 + ((s1 >> 63) & q4)) + r1[c] - q;
            r1[c] = v1 + ((v1 >> 63) & q);
        }
    }

    /** r_v += x_v·y in place, y in Montgomery form: one diagonal's term of a double-hoisted linear transform. */
    public static void productSum1(Modulus m, long[] x0, long[] x1, long[] y, long[] r0, long[] r1) {
        if (lanes(r0.length)) {
            SimdLimbProducts.single(m, y, x0, x1, r0, r1);
        } else {
            scalarProductSum1(m, x0, x1, y, r0, r1);
        }
    }

    /** {@link #productSum1} on a scalar core. */
    static void scalarProductSum1(Modulus m, long[] x0, long[] x1, long[] y, long[] r0, long[] r1) {
        long q = m.value();
        for (int c = 0; c < r0.length; c++) {
            long u = y[c];
            long v0 = r0[c] + m.mulMont(x0[c], u) - q;
            r0[c] = v0 + ((v0 >> 63) & q);
            long v1 = r1[c] + m.mulMont(x1[c], u) - q;
            r1[c] = v1 + ((v1 >> 63) & q);
        }
    }

    public static void addInPlace(Modulus m, long[] acc, long[] x) {
        long q = m.value();
        for (int c = 0; c < acc.length; c++) {
            long r = acc[c] + x[c] - q;
            acc[c] = r + ((r >> 63) & q);
        }
    }

    /** acc[target[c]] += x[c]: σ(x) added, σ sending slot c to target[c]. */
    public static void scatterAdd(Modulus m, long[] x, int[] target, long[] acc) {
        long q = m.value();
        for (int c = 0; c < x.length; c++) {
            int at = target[c];
            long r = acc[at] + x[c] - q;
            acc[at] = r + ((r >> 63) & q);
        }
    }

    /** {@link #scatter4} on a scalar core. */
    static void scalarScatter4(
            Modulus m,
            long[][][] digits,
            long[][][][] key,
            int j,
            int pos,
            int prime,
            int[] target,
            long[] o0,
            long[] o1) {
        long q = m.value();
        long q4 = 4 * q; // lifts a negative sum of four unreduced products (each in (−q, q))
        long[] d0 = digits[j][pos];
        long[] d1 = digits[j + 1][pos];
        long[] d2 = digits[j + 2][pos];
        long[] d3 = digits[j + 3][pos];
        long[] b0 = key[j][0][prime];
        long[] b1 = key[j + 1][0][prime];
        long[] b2 = key[j + 2][0][prime];
        long[] b3 = key[j + 3][0][prime];
        long[] a0 = key[j][1][prime];
        long[] a1 = key[j + 1][1][prime];
        long[] a2 = key[j + 2][1][prime];
        long[] a3 = key[j + 3][1][prime];
        for (int c = 0; c < target.length; c++) {
            int at = target[c];
            long x0 = d0[c];
            long x1 = d1[c];
            long x2 = d2[c];
            long x3 = d3[c];
            long s0 = m.mulMontLazy(x0, b0[c])
                    + m.mulMontLazy(x1, b1[c])
                    + m.mulMontLazy(x2, b2[c])
                    + m.mulMontLazy(x3, b3[c]);
            long s1 = m.mulMontLazy(x0, a0[c])
                    + m.mulMontLazy(x1, a1[c])
                    + m.mulMontLazy(x2, a2[c])
                    + m.mulMontLazy(x3, a3[c]);
            long r0 = m.reduce(s0 + ((s0 >> 63) & q4)) + o0[at] - q;
            o0[at] = r0 + ((r0 >> 63) & q);
            long r1 = m.reduce(s1 + ((s1 >> 63) & q4)) + o1[at] - q;
            o1[at] = r1 + ((r1 >> 63) & q);
        }
    }

    /** {@link #scatter2} on a scalar core. */
    static void scalarScatter2(
            Modulus m,
            long[][][] digits,
            long[][][][] key,
            int j,
            int pos,
            int prime,
            int[] target,
            long[] o0,
            long[] o1) {
        long q = m.value();
        long q2 = 2 * q;
        long[] d0 = digits[j][pos];
        long[] d1 = digits[j + 1][pos];
        long[] b0 = key[j][0][prime];
        long[] b1 = key[j + 1][0][prime];
        long[] a0 = key[j][1][prime];
        long[] a1 = key[j + 1][1][prime];
        for (int c = 0; c < target.length; c++) {
            int at = target[c];
            long x0 = d0[c];
            long x1 = d1[c];
            long s0 = m.mulMontLazy(x0, b0[c]) + m.mulMontLazy(x1, b1[c]);
            long s1 = m.mulMontLazy(x0, a0[c]) + m.mulMontLazy(x1, a1[c]);
            long r0 = m.reduce(s0 + ((s0 >> 63) & q2)) + o0[at] - q;
            o0[at] = r0 + ((r0 >> 63) & q);
            long r1 = m.reduce(s1 + ((s1 >> 63) & q2)) + o1[at] - q;
            o1[at] = r1 + ((r1 >> 63) & q);
        }
    }

    public static void scatter1(Modulus m, long[] x, long[] b, long[] a, int[] target, long[] o0, long[] o1) {
        long q = m.value();
        for (int c = 0; c < target.length; c++) {
            int at = target[c];
            long r0 = o0[at] + m.mulMont(x[c], b[c]) - q;
            o0[at] = r0 + ((r0 >> 63) & q);
            long r1 = o1[at] + m.mulMont(x[c], a[c]) - q;
            o1[at] = r1 + ((r1 >> 63) & q);
        }
    }

    /** {@link #accumulate4} on a scalar core. */
    static void scalarAccumulate4(
            Modulus m, long[][][] digits, long[][][][] key, int j, int pos, int prime, long[] o0, long[] o1) {
        long q = m.value();
        long q4 = 4 * q; // lifts a negative sum of four unreduced products (each in (−q, q))
        long[] d0 = digits[j][pos];
        long[] d1 = digits[j + 1][pos];
        long[] d2 = digits[j + 2][pos];
        long[] d3 = digits[j + 3][pos];
        long[] b0 = key[j][0][prime];
        long[] b1 = key[j + 1][0][prime];
        long[] b2 = key[j + 2][0][prime];
        long[] b3 = key[j + 3][0][prime];
        long[] a0 = key[j][1][prime];
        long[] a1 = key[j + 1][1][prime];
        long[] a2 = key[j + 2][1][prime];
        long[] a3 = key[j + 3][1][prime];
        for (int c = 0; c < o0.length; c++) {
            long x0 = d0[c];
            long x1 = d1[c];
            long x2 = d2[c];
            long x3 = d3[c];
            long s0 = m.mulMontLazy(x0, b0[c])
                    + m.mulMontLazy(x1, b1[c])
                    + m.mulMontLazy(x2, b2[c])
                    + m.mulMontLazy(x3, b3[c]);
            long s1 = m.mulMontLazy(x0, a0[c])
                    + m.mulMontLazy(x1, a1[c])
                    + m.mulMontLazy(x2, a2[c])
                    + m.mulMontLazy(x3, a3[c]);
            long r0 = m.reduce(s0 + ((s0 >> 63) & q4)) + o0[c] - q;
            o0[c] = r0 + ((r0 >> 63) & q);
            long r1 = m.reduce(s1 + ((s1 >> 63) & q4)) + o1[c] - q;
            o1[c] = r1 + ((r1 >> 63) & q);
        }
    }

    /** {@link #accumulate2} on a scalar core. */
    static void scalarAccumulate2(
            Modulus m, long[][][] digits, long[][][][] key, int j, int pos, int prime, long[] o0, long[] o1) {
        long q = m.value();
        long q2 = 2 * q;
        long[] d0 = digits[j][pos];
        long[] d1 = digits[j + 1][pos];
        long[] b0 = key[j][0][prime];
        long[] b1 = key[j + 1][0][prime];
        long[] a0 = key[j][1][prime];
        long[] a1 = key[j + 1][1][prime];
        for (int c = 0; c < o0.length; c++) {
            long x0 = d0[c];
            long x1 = d1[c];
            long s0 = m.mulMontLazy(x0, b0[c]) + m.mulMontLazy(x1, b1[c]);
            long s1 = m.mulMontLazy(x0, a0[c]) + m.mulMontLazy(x1, a1[c]);
            long r0 = m.reduce(s0 + ((s0 >> 63) & q2)) + o0[c] - q;
            o0[c] = r0 + ((r0 >> 63) & q);
            long r1 = m.reduce(s1 + ((s1 >> 63) & q2)) + o1[c] - q;
            o1[c] = r1 + ((r1 >> 63) & q);
        }
    }

    /** o0 += d·b and o1 += d·a in place, b and a in Montgomery form: a key switch's last odd digit. */
    public static void accumulate1(Modulus m, long[] d, long[] b, long[] a, long[] o0, long[] o1) {
        if (lanes(o0.length)) {
            SimdLimbProducts.single(m, d, b, a, o0, o1);
        } else {
            scalarAccumulate1(m, d, b, a, o0, o1);
        }
    }

    /** {@link #accumulate1} on a scalar core. */
    static void scalarAccumulate1(Modulus m, long[] d, long[] b, long[] a, long[] o0, long[] o1) {
        long q = m.value();
        for (int c = 0; c < o0.length; c++) {
            long x = d[c];
            long r0 = o0[c] + m.mulMont(x, b[c]) - q;
            o0[c] = r0 + ((r0 >> 63) & q);
            long r1 = o1[c] + m.mulMont(x, a[c]) - q;
            o1[c] = r1 + ((r1 >> 63) & q);
        }
    }
}
