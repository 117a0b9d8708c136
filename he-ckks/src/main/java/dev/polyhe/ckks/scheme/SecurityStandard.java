package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.InsecureParametersException;
import dev.polyhe.api.he.SecurityLevel;

/**
 * The 128-bit classical bounds on log2(QP) for a uniform ternary secret and error of σ ≈ 3.2: N = 2^10 .. 2^15 as
 * the Homomorphic Encryption Security Standard (Albrecht et al., homomorphicencryption.org, November 2018) gives
 * them in its table of 128-bit parameters; N = 2^16 and 2^17 as OpenFHE's HEStd_128_classic table for ternary
 * secrets extends it with the lattice estimator (1 747 and 3 523). docs/security.md has the sources.
 */
public final class SecurityStandard {
    private static final int MIN_LOG_N = 10;
    private static final int[] MAX_LOG_QP = {27, 54, 109, 218, 438, 881, 1747, 3523}; // logN 10..17

    private SecurityStandard() {}

    /** The largest log2(QP) allowed at 128 bits for this ring, or 0 when the ring is too small for any. */
    public static int maxLogQP(int logN) {
        if (logN < MIN_LOG_N) {
            return 0;
        }
        return MAX_LOG_QP[Math.min(logN, 17) - MIN_LOG_N];
    }

    /**
     * @param actualLogQP log2 of the product of the primes actually chosen
     * @throws InsecureParametersException when below 128 bits and not opted in as {@code insecure-test}
     */
    public static void check(CkksParameters p, double actualLogQP) {
        if (p.security() == SecurityLevel.INSECURE_TEST) {
            return;
        }
        int bound = maxLogQP(p.logN());
        if (actualLogQP > bound) {
            throw new InsecureParametersException(String.format(
                    "log2(QP) = %.1f exceeds %d, the 128-bit bound of the HE Security Standard for N = 2^%d; "
                            + "use fewer or smaller primes, a larger ring, or opt in with security "
                            + "'insecure-test' (tests only)",
                    actualLogQP, bound, p.logN()));
        }
        if (p.hammingWeight() != 0) {
            throw new InsecureParametersException("a sparse secret (hammingWeight = " + p.hammingWeight()
                    + ") is outside the HE Security Standard table, which covers uniform ternary secrets only; "
                    + "use hammingWeight 0 or opt in with security 'insecure-test'");
        }
    }
}
