package dev.polyhe.ckks.scheme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.polyhe.ckks.ring.Modulus;
import dev.polyhe.ckks.ring.NttPrimes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The residues of a whole coefficient vector ({@link ScaledInteger#residues}: powers of two for the doubles past
 * 2^62) are the exact ones of a decimal expansion, signs, boundaries and the largest finite doubles included.
 */
class ScaledIntegerTest {
    @Test
    void residuesPastTheLongRangeAreTheExactOnes() {
        Random r = new Random(13);
        double[] x = new double[4096];
        double[] edges = {
            0,
            -0.0,
            1,
            -1,
            0x1p62,
            -0x1p62,
            Math.nextDown(0x1p62),
            0x1p63,
            -0x1p63,
            0x1p100 + 0x1p48,
            Double.MAX_VALUE,
            -Double.MAX_VALUE,
            12345.0,
            -98765.0
        };
        for (int i = 0; i < x.length; i++) {
            double magnitude = Math.scalb(1.0, r.nextInt(120));
            x[i] = i < edges.length ? edges[i] : Math.rint((r.nextDouble() * 2 - 1) * magnitude);
        }
        for (int bits : new int[] {30, 45, 55, 60}) {
            Modulus m = new Modulus(NttPrimes.generate(12, List.of(bits), Set.of())[0]);
            long[] out = new long[x.length];
            ScaledInteger.residues(x, m, out);
            for (int i = 0; i < x.length; i++) {
                assertEquals(exactResidue(x[i], m), out[i], bits + "-bit prime, x = " + x[i]);
            }
        }
    }

    /** round(x) mod q through its exact decimal expansion. */
    private static long exactResidue(double x, Modulus m) {
        BigInteger v = new BigDecimal(x).setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact();
        return v.mod(BigInteger.valueOf(m.value())).longValueExact();
    }
}
