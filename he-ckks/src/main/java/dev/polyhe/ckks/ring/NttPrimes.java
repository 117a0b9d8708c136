package dev.polyhe.ckks.ring;

import java.math.BigInteger;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds primes q = 1 mod 2N (so the negacyclic NTT of size N exists) close to 2^bits. Candidates are taken
 * alternately just below and just above 2^bits, so that a chain of rescales by primes near the scale keeps
 * the scale close to its nominal value.
 */
public final class NttPrimes {
    private NttPrimes() {}

    /** One prime per entry of {@code bitSizes}, all distinct and distinct from {@code taken}. */
    public static long[] generate(int logN, List<Integer> bitSizes, Set<Long> taken) {
        long step = 2L << logN;
        Set<Long> used = new HashSet<>(taken);
        long[] out = new long[bitSizes.size()];
        for (int i = 0; i < out.length; i++) {
            int bits = bitSizes.get(i);
            if (bits < logN + 2 || bits > 60) {
                throw new IllegalArgumentException("prime size " + bits + " bits is out of range for N = 2^" + logN
                        + "; allowed: " + (logN + 2) + " .. 60");
            }
            out[i] = nearest(bits, step, used);
            used.add(out[i]);
        }
        return out;
    }

    private static long nearest(int bits, long step, Set<Long> used) {
        long center = 1L << bits;
        long below = center + 1 - step; // largest candidate 1 mod 2N below 2^bits
        long above = center + 1;
        long lowLimit = 1L << (bits - 1);
        long highLimit = Math.min(center + (center >> 1), (1L << Modulus.MAX_BITS) - 1);
        boolean takeBelow = true;
        while (below > lowLimit || above < highLimit) {
            long candidate;
            if ((takeBelow && below > lowLimit) || above >= highLimit) {
                candidate = below;
                below -= step;
            } else {
                candidate = above;
                above += step;
            }
            takeBelow = !takeBelow;
            if (!used.contains(candidate) && BigInteger.valueOf(candidate).isProbablePrime(64)) {
                return candidate;
            }
        }
        throw new IllegalArgumentException("no NTT-friendly prime of about " + bits + " bits is left for step " + step);
    }

    /** A primitive 2N-th root of unity modulo q. */
    public static long primitiveRoot2N(Modulus m, int logN) {
        long q = m.value();
        long order = 2L << logN;
        long cofactor = (q - 1) / order;
        for (long g = 2; g < q; g++) {
            long psi = m.pow(g, cofactor);
            // psi has order dividing 2N; it is primitive iff psi^N = -1
            if (m.pow(psi, order >>> 1) == q - 1) {
                return psi;
            }
        }
        throw new IllegalStateException("no primitive 2N-th root modulo " + q);
    }
}
