package dev.polyhe.api.he;

import java.util.List;

/**
 * A CKKS parameter literal, validated by the backend when opened.
 *
 * @param logN ring degree N = 2^logN
 * @param logQ bit sizes of the ciphertext primes, q_0 first (q_0 holds the message at level 0; the others
 *        are rescaled away one per level, so there are {@code logQ.size() - 1} levels)
 * @param logP bit sizes of the special primes used by hybrid key switching
 * @param dnum number of key-switching digits the Q primes are split into
 * @param logScale log2 of the default scale Δ
 * @param hammingWeight Hamming weight of a sparse ternary secret, or 0 for a uniform ternary secret
 * @param security the level to enforce; {@link SecurityLevel#INSECURE_TEST} is the opt-in for small rings
 */
public record CkksParameters(
        int logN,
        List<Integer> logQ,
        List<Integer> logP,
        int dnum,
        int logScale,
        int hammingWeight,
        SecurityLevel security) {
    public CkksParameters {
        logQ = List.copyOf(logQ);
        logP = List.copyOf(logP);
        if (logN < 1 || logN > 17) {
            throw new IllegalArgumentException("logN = " + logN + " is out of range; allowed: 1 .. 17");
        }
        if (logQ.isEmpty()) {
            throw new IllegalArgumentException("logQ is empty; at least one ciphertext prime is needed");
        }
        if (logQ.size() > MAX_Q_PRIMES) {
            throw new IllegalArgumentException("logQ has " + logQ.size() + " primes; allowed: at most " + MAX_Q_PRIMES);
        }
        if (logP.size() > MAX_P_PRIMES) {
            throw new IllegalArgumentException("logP has " + logP.size() + " primes; allowed: at most " + MAX_P_PRIMES);
        }
        for (List<Integer> bits : List.of(logQ, logP)) {
            for (int b : bits) {
                if (b < MIN_PRIME_BITS || b > MAX_PRIME_BITS) {
                    throw new IllegalArgumentException(
                            "a prime of " + b + " bits in " + (bits == logQ ? "logQ" : "logP") + "; allowed: "
                                    + MIN_PRIME_BITS + " .. " + MAX_PRIME_BITS);
                }
            }
        }
        if (dnum < 1 || dnum > logQ.size()) {
            throw new IllegalArgumentException("dnum = " + dnum + " is out of range; allowed: 1 .. " + logQ.size());
        }
        if (hammingWeight < 0 || hammingWeight > (1 << logN)) {
            throw new IllegalArgumentException(
                    "hammingWeight = " + hammingWeight + " is out of range; allowed: 0 .. N");
        }
        if (security == null) {
            security = SecurityLevel.HES_128;
        }
    }

    /**
     * Most ciphertext primes: a 128-bit chain at N = 2^17 holds fewer than 100 (3 523 bits), so a longer list is a
     * mistake or a forged file, refused before any prime is searched for.
     */
    public static final int MAX_Q_PRIMES = 100;
    /** Most special primes. */
    public static final int MAX_P_PRIMES = 32;
    /** Bit sizes of NTT-friendly primes that fit the 64-bit limb arithmetic. */
    public static final int MIN_PRIME_BITS = 10;

    public static final int MAX_PRIME_BITS = 61;

    public int ringDegree() {
        return 1 << logN;
    }

    public int slots() {
        return 1 << (logN - 1);
    }

    /** Number of rescales available from a fresh ciphertext. */
    public int maxLevel() {
        return logQ.size() - 1;
    }

    /** log2(QP), the figure the security standard bounds. */
    public int logQP() {
        int sum = 0;
        for (int b : logQ) {
            sum += b;
        }
        for (int b : logP) {
            sum += b;
        }
        return sum;
    }

    public double scale() {
        return Math.scalb(1.0, logScale);
    }
}
