package dev.polyhe.ckks.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ModulusTest {
    @Test
    void montgomeryShoupBarrettAgreeWithBigInteger() {
        Random r = new Random(1);
        for (int bits : new int[] {30, 40, 50, 59, 60}) {
            long q = NttPrimes.generate(12, List.of(bits), Set.of())[0];
            Modulus m = new Modulus(q);
            BigInteger bq = BigInteger.valueOf(q);
            for (int i = 0; i < 20000; i++) {
                long a = Math.floorMod(r.nextLong(), q);
                long b = Math.floorMod(r.nextLong(), q);
                long expected = BigInteger.valueOf(a)
                        .multiply(BigInteger.valueOf(b))
                        .mod(bq)
                        .longValue();
                assertEquals(expected, m.mul(a, b));
                assertEquals(expected, m.mulShoup(a, b, m.shoup(b)));
                assertEquals(BigInteger.valueOf(b).shiftLeft(64).divide(bq).longValue(), m.shoup(b), "Shoup constant");
                long big = r.nextLong() >>> 1;
                assertEquals(big % q, m.reduce(big));
                long signed = r.nextLong();
                assertEquals(Math.floorMod(signed, q), m.reduceSigned(signed));
                assertEquals(Math.floorMod(a + b, q), m.add(a, b));
                assertEquals(Math.floorMod(a - b, q), m.sub(a, b));
            }
            assertEquals(1, m.mul(m.inv(12345), 12345));
        }
    }

    @Test
    void primesAreNttFriendlyAndDistinct() {
        long[] p = NttPrimes.generate(14, List.of(59, 59, 59, 40, 40), Set.of());
        for (int i = 0; i < p.length; i++) {
            assertEquals(1, p[i] % (2L << 14));
            assertEquals(true, BigInteger.valueOf(p[i]).isProbablePrime(50));
            for (int j = 0; j < i; j++) {
                org.junit.jupiter.api.Assertions.assertNotEquals(p[i], p[j]);
            }
        }
    }
}
