package dev.polyhe.ckks.rlwe;

/**
 * How the Q primes are split into key-switching digits: alpha consecutive primes per digit (the last digit
 * may be shorter), alpha = ceil((L+1)/dnum).
 */
public record GadgetDecomposition(int qCount, int alpha) {
    public static GadgetDecomposition of(int qCount, int dnum) {
        return new GadgetDecomposition(qCount, (qCount + dnum - 1) / dnum);
    }

    public int digitCount() {
        return (qCount + alpha - 1) / alpha;
    }

    /** Digits that still have primes at this level. */
    public int digitCount(int level) {
        return level / alpha + 1;
    }

    public int firstPrime(int digit) {
        return digit * alpha;
    }

    /** One past the last prime of the digit at this level. */
    public int endPrime(int digit, int level) {
        return Math.min((digit + 1) * alpha, level + 1);
    }
}
