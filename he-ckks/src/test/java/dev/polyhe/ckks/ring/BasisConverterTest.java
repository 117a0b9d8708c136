package dev.polyhe.ckks.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.List;
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
}
