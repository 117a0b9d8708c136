package dev.polyhe.ckks.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The sums of Montgomery products on lanes ({@link SimdLimbProducts}, what {@link LimbProducts} runs here) are the
 * scalar loops' limbs bit for bit: in place and scattered, two and four terms, 30- to 60-bit primes, limbs of one
 * vector, of one chunk and of several (a partial last one too), operands at the edges of [0, q); and so are the
 * sums of products of a ciphertext's two limbs with a plaintext's ({@code RnsArithmetic#multiplyPairSum}), one term
 * and many.
 */
class LimbProductsTest {
    private static final int[] BITS = {30, 45, 52, 60};
    private static final int[] LENGTHS = {8, 1024, 1032, 4096};

    @Test
    void diagonalSumsMatchTheScalarLoop() {
        assertTrue(Simd.available(), "the tests run with --add-modules jdk.incubator.vector: " + Simd.describe());
        Random r = new Random(5);
        for (int bits : BITS) {
            Modulus m = modulus(bits);
            for (int n : LENGTHS) {
                long[][] x = new long[8][];
                for (int i = 0; i < x.length; i++) {
                    x[i] = operands(r, m, n, i);
                }
                long[][] y = {operands(r, m, n, 8), operands(r, m, n, 9), operands(r, m, n, 10), operands(r, m, n, 11)};
                long[] r0 = operands(r, m, n, 12);
                long[] r1 = operands(r, m, n, 13);
                long[] s0 = r0.clone();
                long[] s1 = r1.clone();
                LimbProducts.productSum4(m, x, y[0], y[1], y[2], y[3], r0, r1);
                LimbProducts.scalarProductSum4(m, x, y[0], y[1], y[2], y[3], s0, s1);
                assertArrayEquals(s0, r0, bits + "-bit prime, n = " + n);
                assertArrayEquals(s1, r1, bits + "-bit prime, n = " + n);
            }
        }
    }

    @Test
    void digitSumsMatchTheScalarLoopsInPlaceAndScattered() {
        assertTrue(Simd.available(), "the tests run with --add-modules jdk.incubator.vector: " + Simd.describe());
        Random r = new Random(6);
        for (int bits : BITS) {
            Modulus m = modulus(bits);
            for (int n : LENGTHS) {
                int digitCount = 7; // a term of four digits from j = 1, and one of two from j = 5
                int pos = 1;
                int prime = 2;
                long[][][] digits = new long[digitCount][3][];
                long[][][][] key = new long[digitCount][2][4][];
                for (int j = 0; j < digitCount; j++) {
                    digits[j][pos] = operands(r, m, n, j);
                    key[j][0][prime] = operands(r, m, n, j + 1);
                    key[j][1][prime] = operands(r, m, n, j + 2);
                }
                int[] target = permutation(r, n);
                for (int scattered = 0; scattered < 2; scattered++) {
                    long[] o0 = operands(r, m, n, 3);
                    long[] o1 = operands(r, m, n, 4);
                    long[] p0 = o0.clone();
                    long[] p1 = o1.clone();
                    String where = bits + "-bit prime, n = " + n + (scattered == 1 ? ", scattered" : ", in place");
                    if (scattered == 1) {
                        LimbProducts.scatter4(m, digits, key, 1, pos, prime, target, o0, o1);
                        LimbProducts.scatter2(m, digits, key, 5, pos, prime, target, o0, o1);
                        LimbProducts.scalarScatter4(m, digits, key, 1, pos, prime, target, p0, p1);
                        LimbProducts.scalarScatter2(m, digits, key, 5, pos, prime, target, p0, p1);
                    } else {
                        LimbProducts.accumulate4(m, digits, key, 1, pos, prime, o0, o1);
                        LimbProducts.accumulate2(m, digits, key, 5, pos, prime, o0, o1);
                        LimbProducts.scalarAccumulate4(m, digits, key, 1, pos, prime, p0, p1);
                        LimbProducts.scalarAccumulate2(m, digits, key, 5, pos, prime, p0, p1);
                    }
                    assertArrayEquals(p0, o0, where);
                    assertArrayEquals(p1, o1, where);
                }
            }
        }
    }

    @Test
    void singleTermsMatchTheScalarLoops() {
        assertTrue(Simd.available(), "the tests run with --add-modules jdk.incubator.vector: " + Simd.describe());
        Random r = new Random(8);
        for (int bits : BITS) {
            Modulus m = modulus(bits);
            for (int n : LENGTHS) {
                long[] d = operands(r, m, n, 0);
                long[] b = operands(r, m, n, 1);
                long[] a = operands(r, m, n, 2);
                long[] o0 = operands(r, m, n, 3);
                long[] o1 = operands(r, m, n, 4);
                long[] p0 = o0.clone();
                long[] p1 = o1.clone();
                String where = bits + "-bit prime, n = " + n;
                LimbProducts.accumulate1(m, d, b, a, o0, o1);
                LimbProducts.scalarAccumulate1(m, d, b, a, p0, p1);
                assertArrayEquals(p0, o0, where + ", accumulate1");
                assertArrayEquals(p1, o1, where + ", accumulate1");
                LimbProducts.productSum1(m, b, a, d, o0, o1);
                LimbProducts.scalarProductSum1(m, b, a, d, p0, p1);
                assertArrayEquals(p0, o0, where + ", productSum1");
                assertArrayEquals(p1, o1, where + ", productSum1");
            }
        }
    }

    @Test
    void tensorProductsMatchTheScalarLoop() {
        assertTrue(Simd.available(), "the tests run with --add-modules jdk.incubator.vector: " + Simd.describe());
        Random r = new Random(9);
        for (int bits : BITS) {
            Modulus m = modulus(bits);
            for (int n : LENGTHS) {
                long[] a0 = operands(r, m, n, 0);
                long[] a1 = operands(r, m, n, 1);
                long[] b0 = operands(r, m, n, 2);
                long[] b1 = operands(r, m, n, 3);
                long[][] lanes = new long[3][n];
                long[][] scalar = new long[3][n];
                SimdLimbProducts.tensor(m, a0, a1, b0, b1, lanes[0], lanes[1], lanes[2]);
                RnsArithmetic.scalarTensor(m, a0, a1, b0, b1, scalar[0], scalar[1], scalar[2]);
                for (int d = 0; d < 3; d++) {
                    assertArrayEquals(scalar[d], lanes[d], bits + "-bit prime, n = " + n + ", d" + d);
                }
                for (int c = 0; c < Math.min(n, 64); c++) {
                    assertEquals(m.mul(a0[c], b0[c]), lanes[0][c]);
                    assertEquals(m.add(m.mul(a0[c], b1[c]), m.mul(a1[c], b0[c])), lanes[1][c]);
                    assertEquals(m.mul(a1[c], b1[c]), lanes[2][c]);
                }
            }
        }
    }

    @Test
    void plaintextProductSumsMatchTheResiduesTermByTerm() {
        assertTrue(Simd.available(), "the tests run with --add-modules jdk.incubator.vector: " + Simd.describe());
        Random r = new Random(7);
        for (int bits : BITS) {
            Modulus m = modulus(bits);
            for (int n : LENGTHS) {
                // 1 to 8 terms: the buffers are reduced before the 4th and the 7th
                for (int terms : new int[] {1, 2, 3, 4, 7, 8}) {
                    long[][] x0 = new long[terms][];
                    long[][] x1 = new long[terms][];
                    long[][] y = new long[terms][];
                    for (int t = 0; t < terms; t++) {
                        x0[t] = operands(r, m, n, 3 * t);
                        x1[t] = operands(r, m, n, 3 * t + 1);
                        y[t] = operands(r, m, n, 3 * t + 2);
                    }
                    long[] s0 = operands(r, m, n, 30);
                    long[] s1 = operands(r, m, n, 31);
                    long[] r0 = new long[n];
                    long[] r1 = new long[n];
                    SimdLimbProducts.plainSum(m, x0, x1, y, s0, s1, r0, r1);
                    long[] p0 = new long[n];
                    long[] p1 = new long[n];
                    SimdLimbProducts.plainSum(m, x0, x1, y, null, null, p0, p1);
                    long[] q0 = s0.clone();
                    long[] q1 = s1.clone();
                    SimdLimbProducts.plainSum(m, x0, x1, y, q0, q1, q0, q1); // in place
                    long[] c0 = new long[n];
                    long[] c1 = new long[n];
                    RnsArithmetic.scalarPlainSum(m, x0, x1, y, s0, s1, c0, c1);
                    String where = bits + "-bit prime, n = " + n + ", " + terms + " terms";
                    for (int c = 0; c < n; c++) {
                        long e0 = 0;
                        long e1 = 0;
                        for (int t = 0; t < terms; t++) {
                            e0 = m.add(e0, m.mul(x0[t][c], y[t][c]));
                            e1 = m.add(e1, m.mul(x1[t][c], y[t][c]));
                        }
                        assertEquals(e0, p0[c], where + ", c = " + c);
                        assertEquals(e1, p1[c], where + ", c = " + c);
                        assertEquals(m.add(s0[c], e0), r0[c], where + ", c = " + c);
                        assertEquals(m.add(s1[c], e1), r1[c], where + ", c = " + c);
                    }
                    assertArrayEquals(r0, q0, where + ", in place");
                    assertArrayEquals(r1, q1, where + ", in place");
                    assertArrayEquals(r0, c0, where + ", scalar");
                    assertArrayEquals(r1, c1, where + ", scalar");
                }
            }
        }
    }

    private static Modulus modulus(int bits) {
        return new Modulus(NttPrimes.generate(12, List.of(bits), Set.of())[0]);
    }

    /** Residues in [0, q), the first few at the edges (0, 1, q − 1, q − 2), shifted by {@code seed}. */
    private static long[] operands(Random r, Modulus m, int n, int seed) {
        long q = m.value();
        long[] edges = {0, 1, q - 1, q - 2, q / 2, (q + 1) / 2};
        long[] x = new long[n];
        for (int c = 0; c < n; c++) {
            int e = c + seed;
            x[c] = c < 16 && e % 3 != 0 ? edges[e % edges.length] : Math.floorMod(r.nextLong(), q);
        }
        return x;
    }

    private static int[] permutation(Random r, int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int k = r.nextInt(i + 1);
            int t = p[i];
            p[i] = p[k];
            p[k] = t;
        }
        return p;
    }
}
