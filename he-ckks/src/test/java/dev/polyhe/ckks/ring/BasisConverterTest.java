package dev.polyhe.ckks.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The constants a GPU executor uploads are the textbook ones, checked with big integers. */
class BasisConverterTest {
    @Test
    void tablesAreTheHatsAndTheirInverses() {
        long[] primes = NttPrimes.generate(10, List.of(50, 50, 55, 60, 60), Set.of());
        long[] q = {primes[0], primes[1], primes[2]};
        long[] p = {primes[3], primes[4]};
        Modulus[] source = {new Modulus(q[0]), new Modulus(q[1]), new Modulus(q[2])};
        Modulus[] target = {new Modulus(p[0]), new Modulus(p[1])};
        long[][] t = new BasisConverter(source, target).tables();
        BigInteger all = BigInteger.ONE;
        for (long v : q) {
            all = all.multiply(BigInteger.valueOf(v));
        }
        for (int j = 0; j < q.length; j++) {
            BigInteger qj = BigInteger.valueOf(q[j]);
            BigInteger hat = all.divide(qj);
            assertEquals(hat.modInverse(qj).longValueExact(), t[0][j], "(Q/q_j)^-1 mod q_j, j = " + j);
            assertEquals(source[j].shoup(t[0][j]), t[1][j]);
            for (int k = 0; k < p.length; k++) {
                long expected = hat.mod(BigInteger.valueOf(p[k])).longValueExact();
                assertEquals(expected, t[2][k * q.length + j], "(Q/q_j) mod p_t, t = " + k + ", j = " + j);
                assertEquals(target[k].shoup(expected), t[3][k * q.length + j]);
            }
        }
    }

    /**
     * The conversion is Σ_j y_j·(Q/q_j) mod p_t exactly, y_j the centred [x_j·(Q/q_j)^-1]_{q_j}: checked with big
     * integers for every group size the conversion has a loop of its own for (1 to 4 sources, 5 and 7 as a group of
     * four and a tail, 40), on sources near 2^60 and targets of 61 bits (four unreduced products near the edge of a
     * long), 60 and 50 bits, with coefficients at the edges of their range; on SIMD lanes (where the tests add the
     * Vector API, as the build does) and in scalar loops.
     */
    @Test
    void conversionIsTheExactSumOfCentredTerms() {
        assertTrue(Simd.available(), Simd.describe());
        for (boolean simd : new boolean[] {true, false}) {
            conversionIsTheExactSumOfCentredTerms(simd);
        }
    }

    private static void conversionIsTheExactSumOfCentredTerms(boolean simd) {
        for (int sources : new int[] {1, 2, 3, 4, 5, 7, 40}) {
            List<Integer> bits = new ArrayList<>(Collections.nCopies(sources, 60));
            bits.addAll(List.of(60, 50));
            long[] primes = NttPrimes.generate(6, bits, Set.of());
            Modulus[] source = new Modulus[sources];
            for (int j = 0; j < sources; j++) {
                source[j] = new Modulus(primes[j]);
            }
            // 2^61 − 1 (prime, not NTT-friendly: the conversion needs neither) is the largest modulus allowed
            Modulus[] target = {
                new Modulus((1L << 61) - 1), new Modulus(primes[sources]), new Modulus(primes[sources + 1])
            };
            BasisConverter conv = new BasisConverter(source, target, simd);
            int n = 64;
            Random r = new Random(sources);
            long[][] scaled = new long[sources][n];
            for (int j = 0; j < sources; j++) {
                long q = primes[j];
                long[] x = new long[n];
                for (int c = 0; c < n; c++) {
                    x[c] = c == 0 ? 0 : c == 1 ? q - 1 : Math.floorMod(r.nextLong(), q);
                }
                conv.scaleSource(j, x, scaled[j]);
                BigInteger qj = BigInteger.valueOf(q);
                BigInteger hatInverse = BigInteger.ONE;
                for (int i = 0; i < sources; i++) {
                    if (i != j) {
                        hatInverse = hatInverse.multiply(BigInteger.valueOf(primes[i]));
                    }
                }
                hatInverse = hatInverse.modInverse(qj);
                for (int c = 0; c < n; c++) {
                    long y = BigInteger.valueOf(x[c])
                            .multiply(hatInverse)
                            .mod(qj)
                            .longValueExact();
                    assertEquals(y > q / 2 ? y - q : y, scaled[j][c], "centred y_" + j + "[" + c + "]");
                }
            }
            for (int t = 0; t < target.length; t++) {
                long[] out = new long[n];
                conv.accumulateTarget(t, scaled, out);
                BigInteger pt = BigInteger.valueOf(target[t].value());
                for (int c = 0; c < n; c++) {
                    BigInteger sum = BigInteger.ZERO;
                    for (int j = 0; j < sources; j++) {
                        BigInteger hat = BigInteger.ONE;
                        for (int i = 0; i < sources; i++) {
                            if (i != j) {
                                hat = hat.multiply(BigInteger.valueOf(primes[i]));
                            }
                        }
                        sum = sum.add(BigInteger.valueOf(scaled[j][c]).multiply(hat));
                    }
                    assertEquals(
                            sum.mod(pt).longValueExact(),
                            out[c],
                            (simd ? "SIMD: " : "scalar: ") + "sources " + sources + ", target " + t + ", coefficient "
                                    + c);
                }
            }
        }
    }
}
