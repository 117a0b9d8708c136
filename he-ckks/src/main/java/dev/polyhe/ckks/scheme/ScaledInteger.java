package dev.polyhe.ckks.scheme;

import dev.polyhe.ckks.ring.Modulus;

/** round(x) of a double as a residue modulo a prime, exact even when |x| exceeds the long range. */
final class ScaledInteger {
    private static final double LONG_SAFE = 0x1p62;
    /** The largest power of two a finite double's integer part carries beyond its 53-bit significand. */
    private static final int MAX_SHIFT = Double.MAX_EXPONENT - 52;

    private ScaledInteger() {}

    static boolean fitsLong(double x) {
        return Math.abs(x) < LONG_SAFE;
    }

    /**
     * out[i] = round(x[i]) mod q for every coefficient, exactly: a double at or above 2^62 is an
     * integer, its significand times 2^(exponent − 52), so its residue is the significand's times 2^shift mod q from
     * a table of powers of two made once per call (not a decimal expansion per coefficient and prime, which took
     * seconds for a bootstrap circuit's diagonals, encoded at scales near 2^60).
     */
    static void residues(double[] x, Modulus m, long[] out) {
        long[] powers = null;
        long q = m.value();
        for (int i = 0; i < x.length; i++) {
            double v = x[i];
            if (fitsLong(v)) {
                out[i] = m.reduceSigned(Math.round(v));
                continue;
            }
            if (powers == null) {
                powers = powersOfTwo(m);
            }
            long significand = (Double.doubleToRawLongBits(v) & ((1L << 52) - 1)) | (1L << 52);
            long r = m.mul(m.reduce(significand), powers[Math.getExponent(v) - 52]);
            out[i] = v < 0 && r != 0 ? q - r : r;
        }
    }

    /** 2^k mod q for k in [0, MAX_SHIFT]. */
    private static long[] powersOfTwo(Modulus m) {
        long[] p = new long[MAX_SHIFT + 1];
        p[0] = m.reduce(1);
        for (int k = 1; k < p.length; k++) {
            p[k] = m.add(p[k - 1], p[k - 1]);
        }
        return p;
    }
}
