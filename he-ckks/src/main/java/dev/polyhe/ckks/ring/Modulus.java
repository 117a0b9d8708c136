package dev.polyhe.ckks.ring;

import java.math.BigInteger;

/**
 * One NTT-friendly prime q &lt; 2^61 and the constants its modular arithmetic needs: signed Montgomery
 * (R = 2^64), Shoup multiplication by fixed operands, and Barrett reduction of non-negative 64-bit words.
 * The bound 2^61 keeps 4q below 2^63, which the lazy NTT butterflies rely on.
 */
public final class Modulus {
    public static final int MAX_BITS = 61;
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    private final long q;
    private final long qInv; // q^-1 mod 2^64
    private final long r2; // 2^128 mod q
    private final long barrett; // floor(2^64 / q)
    private final long twoTo64ModQ;

    public Modulus(long q) {
        if (q < 3 || (q & 1) == 0 || 64 - Long.numberOfLeadingZeros(q) > MAX_BITS) {
            throw new IllegalArgumentException("modulus " + q + " must be an odd number below 2^" + MAX_BITS);
        }
        this.q = q;
        long inv = q; // Newton iteration: each step doubles the correct low bits (q*q = 1 mod 8 to start)
        for (int i = 0; i < 5; i++) {
            inv *= 2 - q * inv;
        }
        this.qInv = inv;
        BigInteger bq = BigInteger.valueOf(q);
        this.r2 = BigInteger.ONE.shiftLeft(128).mod(bq).longValueExact();
        this.barrett = TWO_64.divide(bq).longValue();
        this.twoTo64ModQ = -barrett * q; // 2^64 - floor(2^64/q)·q, computed modulo 2^64
    }

    public long value() {
        return q;
    }

    /** q^-1 mod 2^64, the Montgomery constant (R = 2^64), for executors that reduce elsewhere. */
    public long montgomeryInverse() {
        return qInv;
    }

    /** R^2 = 2^128 mod q: one Montgomery product by it gives a value's Montgomery form. */
    public long montgomerySquare() {
        return r2;
    }

    /** R = 2^64 mod q: a residue times it (Shoup's product, a constant) is its Montgomery form. */
    public long montgomeryRadix() {
        return twoTo64ModQ;
    }

    /** floor(2^64 / q) as an unsigned word: Barrett reduction of one 64-bit word. */
    public long barrettFactor() {
        return barrett;
    }

    public int bits() {
        return 64 - Long.numberOfLeadingZeros(q);
    }

    /** a·b·2^-64 mod q in [0, q), for |a| &lt; 2^63 and 0 &le; b &lt; q. */
    public long mulMont(long a, long b) {
        long lo = a * b;
        long hi = Math.multiplyHigh(a, b);
        long m = lo * qInv;
        long r = hi - Math.multiplyHigh(m, q);
        return r + ((r >> 63) & q);
    }

    /**
     * a·b·2^-64 mod q in (−q, q), for |a| &lt; 2^63 and 0 &le; b &lt; q: {@link #mulMont} without its correction,
     * for sums that reduce once (four of them stay inside a long: q &lt; 2^61).
     */
    public long mulMontLazy(long a, long b) {
        long m = a * b * qInv;
        return Math.multiplyHigh(a, b) - Math.multiplyHigh(m, q);
    }

    /** a·2^64 mod q: the Montgomery form of a (0 &le; a &lt; 2^63). */
    public long toMont(long a) {
        return mulMont(a, r2);
    }

    /** a·b mod q for 0 &le; a &lt; 2^63, 0 &le; b &lt; q. */
    public long mul(long a, long b) {
        return mulMont(mulMont(a, b), r2);
    }

    /** x mod q for any non-negative long. */
    public long reduce(long x) {
        long r = x - Math.multiplyHigh(x, barrett) * q - q;
        return r + ((r >> 63) & q);
    }

    /** x mod q in [0, q) for any signed long. */
    public long reduceSigned(long x) {
        return x >= 0 ? reduce(x) : q - 1 - reduce(-(x + 1));
    }

    /** floor(w·2^64 / q): the Shoup companion of a fixed multiplicand w &lt; q. */
    public long shoup(long w) {
        // w·2^64 = w·floor(2^64/q)·q + w·r0 with r0 = 2^64 mod q; the quotient of w·r0 by q is exact after
        // subtracting its remainder, so it is found by multiplying with q^-1 modulo 2^64 (no 128-bit division).
        long rem = mul(w, twoTo64ModQ);
        return w * barrett + (w * twoTo64ModQ - rem) * qInv;
    }

    /** a·w mod q in [0, 2q) for 0 &le; a &lt; 2^63, given wShoup = shoup(w). */
    public long mulShoupLazy(long a, long w, long wShoup) {
        long hi = Math.multiplyHigh(a, wShoup) + ((wShoup >> 63) & a); // unsigned high word
        return a * w - hi * q;
    }

    public long mulShoup(long a, long w, long wShoup) {
        long r = mulShoupLazy(a, w, wShoup) - q;
        return r + ((r >> 63) & q);
    }

    public long add(long a, long b) {
        long s = a + b - q;
        return s + ((s >> 63) & q);
    }

    public long sub(long a, long b) {
        long s = a - b;
        return s + ((s >> 63) & q);
    }

    public long neg(long a) {
        return a == 0 ? 0 : q - a;
    }

    public long pow(long base, long exp) {
        long result = 1;
        long b = reduce(base);
        long e = exp;
        while (e > 0) {
            if ((e & 1) != 0) {
                result = mul(result, b);
            }
            b = mul(b, b);
            e >>>= 1;
        }
        return result;
    }

    /** The inverse of a (q is prime). */
    public long inv(long a) {
        long r = reduce(a);
        if (r == 0) {
            throw new ArithmeticException("0 has no inverse modulo " + q);
        }
        return pow(r, q - 2);
    }

    @Override
    public String toString() {
        return "Modulus(" + q + ")";
    }
}
