package dev.polyhe.ckks.rlwe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.ckks.ring.LimbPool;
import dev.polyhe.ckks.ring.NttPrimes;
import dev.polyhe.ckks.ring.RnsRing;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeySwitcherTest {
    /**
     * ModDown of P·Y + R (R in [0, P)) gives Y up to the fast-conversion error (at most the number of special primes).
     */
    @Test
    void modDownDividesByP() {
        for (List<Integer> pBits : List.of(List.of(60), List.of(60, 60), List.of(50, 50, 50))) {
            int logN = 6;
            int n = 1 << logN;
            long[] q = NttPrimes.generate(logN, List.of(55, 45, 45), Set.of());
            Set<Long> taken = Set.of(q[0], q[1], q[2]);
            long[] p = NttPrimes.generate(logN, pBits, taken);
            try (LimbPool pool = new LimbPool(1)) {
                RnsRing ring = new RnsRing(logN, q, p, pool);
                KeySwitcher ks = new KeySwitcher(ring, GadgetDecomposition.of(3, 3));
                BigInteger bigP = BigInteger.ONE;
                for (long x : p) {
                    bigP = bigP.multiply(BigInteger.valueOf(x));
                }
                Random r = new Random(5);
                long[] y = new long[n];
                BigInteger[] value = new BigInteger[n];
                for (int c = 0; c < n; c++) {
                    y[c] = r.nextInt(2001) - 1000;
                    BigInteger rem = new BigInteger(bigP.bitLength() + 8, r).mod(bigP);
                    value[c] = bigP.multiply(BigInteger.valueOf(y[c])).add(rem);
                }
                int level = 2;
                int width = level + 1 + p.length;
                long[][] x = new long[width][n];
                for (int pos = 0; pos < width; pos++) {
                    int prime = ring.extendedIndex(level, pos);
                    BigInteger m = BigInteger.valueOf(ring.modulus(prime).value());
                    for (int c = 0; c < n; c++) {
                        x[pos][c] = value[c].mod(m).longValue();
                    }
                    ring.ntt(prime).forward(x[pos]);
                }
                long[][] out = ks.modDown(new long[][][] {x}, level)[0];
                for (int i = 0; i <= level; i++) {
                    ring.ntt(i).inverse(out[i]);
                    long qi = ring.modulus(i).value();
                    for (int c = 0; c < n; c++) {
                        long got = out[i][c] > qi / 2 ? out[i][c] - qi : out[i][c];
                        long err = Math.abs(got - y[c]);
                        assertTrue(
                                err <= p.length,
                                "P bits " + pBits + ": coefficient " + c + " limb " + i + ": got " + got + ", expected "
                                        + y[c]);
                    }
                }
            }
        }
    }

    /**
     * The division of a product's relinearization and rescale fused, by P·q_level at once, rounds exactly: (P·D + X)
     * with X = P·q_l·Y + R − P·D, |R| below half of P·q_l, gives Y on every coefficient (the fast conversion's excess
     * taken off; an approximate one was off by up to (k + 1)/2 on most).
     */
    @Test
    void modDownRescaleRoundsExactly() {
        for (List<Integer> pBits : List.of(List.of(60), List.of(60, 60, 60, 60), List.of(50, 50, 50))) {
            int logN = 6;
            int n = 1 << logN;
            long[] q = NttPrimes.generate(logN, List.of(55, 45, 45, 50), Set.of());
            Set<Long> taken = Set.of(q[0], q[1], q[2], q[3]);
            long[] p = NttPrimes.generate(logN, pBits, taken);
            try (LimbPool pool = new LimbPool(2)) {
                RnsRing ring = new RnsRing(logN, q, p, pool);
                KeySwitcher ks = new KeySwitcher(ring, GadgetDecomposition.of(4, 2));
                int level = 3;
                BigInteger bigP = BigInteger.ONE;
                for (long x : p) {
                    bigP = bigP.multiply(BigInteger.valueOf(x));
                }
                BigInteger divisor = bigP.multiply(BigInteger.valueOf(q[level]));
                Random r = new Random(pBits.size());
                long[][][] x = new long[2][level + 1 + p.length][n];
                long[][][] d = new long[2][level + 1][n];
                BigInteger[][] y = new BigInteger[2][n];
                for (int v = 0; v < 2; v++) {
                    for (int c = 0; c < n; c++) {
                        y[v][c] = new BigInteger(100, r).subtract(BigInteger.ONE.shiftLeft(99));
                        BigInteger rem = new BigInteger(divisor.bitLength() + 8, r)
                                .mod(divisor)
                                .subtract(divisor.shiftRight(1));
                        // the second part without a d (null: zero), as a sum of rotations passes it
                        BigInteger dc = v == 1 ? BigInteger.ZERO : BigInteger.valueOf(r.nextLong() >> 20);
                        BigInteger xc = divisor.multiply(y[v][c]).add(rem).subtract(bigP.multiply(dc));
                        for (int pos = 0; pos < x[v].length; pos++) {
                            BigInteger m = BigInteger.valueOf(
                                    ring.modulus(ring.extendedIndex(level, pos)).value());
                            x[v][pos][c] = xc.mod(m).longValue();
                            if (pos <= level) {
                                d[v][pos][c] = dc.mod(m).longValue();
                            }
                        }
                    }
                    for (int pos = 0; pos < x[v].length; pos++) {
                        ring.ntt(ring.extendedIndex(level, pos)).forward(x[v][pos]);
                        if (pos <= level) {
                            ring.ntt(pos).forward(d[v][pos]);
                        }
                    }
                }
                long[][][] out = ks.modDownRescale(x, new long[][][] {d[0], null}, level);
                for (int v = 0; v < 2; v++) {
                    for (int i = 0; i < level; i++) {
                        ring.ntt(i).inverse(out[v][i]);
                        BigInteger m = BigInteger.valueOf(ring.modulus(i).value());
                        for (int c = 0; c < n; c++) {
                            assertEquals(
                                    y[v][c].mod(m).longValue(),
                                    out[v][i][c],
                                    "P bits " + pBits + ", part " + v + ", limb " + i + ", coefficient " + c);
                        }
                    }
                }
            }
        }
    }
}
