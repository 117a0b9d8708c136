package dev.polyhe.ckks.scheme;

import dev.polyhe.ckks.ring.Modulus;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/** round(x) of a double as a residue modulo a prime, exact even when |x| exceeds the long range. */
final class ScaledInteger {
    private static final double LONG_SAFE = 0x1p62;

    private ScaledInteger() {}

    static boolean fitsLong(double x) {
        return Math.abs(x) < LONG_SAFE;
    }

    static long residue(double x, Modulus m) {
        if (fitsLong(x)) {
            return m.reduceSigned(Math.round(x));
        }
        BigInteger v = new BigDecimal(x).setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact();
        return v.mod(BigInteger.valueOf(m.value())).longValueExact();
    }
}
