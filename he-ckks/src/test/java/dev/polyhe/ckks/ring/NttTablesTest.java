package dev.polyhe.ckks.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NttTablesTest {
    @Test
    void roundTripAndNegacyclicConvolution() {
        Random r = new Random(2);
        // both parities of the radix-4 layer pairs, forward and inverse; primes up to the 60 bits the chains use
        for (int logN : new int[] {1, 2, 3, 5, 6, 10}) {
            for (int bits : new int[] {30, 50, 60}) {
                int n = 1 << logN;
                Modulus m = new Modulus(NttPrimes.generate(logN, List.of(Math.max(bits, logN + 2)), Set.of())[0]);
                NttTables ntt = new NttTables(m, logN);
                long[] a = new long[n];
                long[] b = new long[n];
                for (int i = 0; i < n; i++) {
                    a[i] = Math.floorMod(r.nextLong(), m.value());
                    b[i] = Math.floorMod(r.nextLong(), m.value());
                }
                a[0] = m.value() - 1; // the largest input, against the lazy butterflies' bounds
                long[] expected = new long[n];
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++) {
                        long p = m.mul(a[i], b[j]);
                        int k = i + j;
                        if (k < n) {
                            expected[k] = m.add(expected[k], p);
                        } else {
                            expected[k - n] = m.sub(expected[k - n], p);
                        }
                    }
                }
                long[] fa = a.clone();
                long[] fb = b.clone();
                ntt.forward(fa);
                ntt.forward(fb);
                long[] back = fa.clone();
                ntt.inverse(back);
                assertArrayEquals(a, back, "inverse(forward(a)) = a");
                long[] prod = new long[n];
                for (int i = 0; i < n; i++) {
                    prod[i] = m.mul(fa[i], fb[i]);
                }
                ntt.inverse(prod);
                assertArrayEquals(expected, prod, "NTT product = negacyclic convolution, N = 2^" + logN);
            }
        }
    }

    /**
     * The SIMD layers (run where the Vector API is in the boot layer, as the build's tests add it) give the scalar
     * transform's limbs bit for bit, on inputs at the lazy bounds' edges too, for primes up to the 60 bits allowed.
     */
    @Test
    void simdLayersMatchTheScalarTransform() {
        assertTrue(Simd.available(), "the tests run with --add-modules jdk.incubator.vector: " + Simd.describe());
        Random r = new Random(5);
        for (int logN : new int[] {11, 12, 13, 16}) {
            for (int bits : new int[] {30, 40, 52, 60}) {
                int n = 1 << logN;
                Modulus m = new Modulus(NttPrimes.generate(logN, List.of(bits), Set.of())[0]);
                NttTables simd = new NttTables(m, logN, true);
                NttTables scalar = new NttTables(m, logN, false);
                long[] a = new long[n];
                for (int i = 0; i < n; i++) {
                    a[i] = i % 7 == 0 ? m.value() - 1 - i % 3 : Math.floorMod(r.nextLong(), m.value());
                }
                long[] viaSimd = a.clone();
                long[] viaScalar = a.clone();
                simd.forward(viaSimd);
                scalar.forward(viaScalar);
                assertArrayEquals(viaScalar, viaSimd, "forward, N = 2^" + logN + ", " + bits + "-bit prime");
                simd.inverse(viaSimd);
                scalar.inverse(viaScalar);
                assertArrayEquals(viaScalar, viaSimd, "inverse, N = 2^" + logN + ", " + bits + "-bit prime");
                assertArrayEquals(a, viaSimd, "inverse(forward(a)) = a");
            }
        }
    }

    @Test
    void automorphismInNttFormMatchesCoefficientForm() {
        int logN = 5;
        int n = 1 << logN;
        Modulus m = new Modulus(NttPrimes.generate(logN, List.of(40), Set.of())[0]);
        NttTables ntt = new NttTables(m, logN);
        Random r = new Random(3);
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = Math.floorMod(r.nextLong(), m.value());
        }
        for (long g : new long[] {5, 25, 2L * n - 1, 3}) {
            long[] expected = new long[n];
            for (int i = 0; i < n; i++) {
                long e = (i * g) % (2L * n);
                if (e < n) {
                    expected[(int) e] = m.add(expected[(int) e], a[i]);
                } else {
                    expected[(int) (e - n)] = m.sub(expected[(int) (e - n)], a[i]);
                }
            }
            long[] fa = a.clone();
            ntt.forward(fa);
            long[] out = new long[n];
            new Automorphism(logN, g).apply(fa, out);
            ntt.inverse(out);
            assertArrayEquals(expected, out, "X -> X^" + g);
        }
        assertEquals(n, a.length);
    }
}
