package dev.polyhe.core.engine.encrypted;

import java.util.Random;

/**
 * Noise flooding of decrypted values, the countermeasure to the key-recovery attack of Li and Micciancio
 * (EUROCRYPT 2021): a CKKS decryption {@code m + e} reveals the error {@code e}, which is linear in the secret key,
 * so decrypted results must not reach anyone who also holds the ciphertexts, unless Gaussian noise much wider
 * than {@code e} is added first.
 *
 * <p>The width follows Li, Micciancio, Schultz and Sorrell (CRYPTO 2022) as OpenFHE applies it: for {@code s} bits
 * of statistical security against {@code τ} decryptions of related ciphertexts, {@code σ = √(12τ)·2^(s/2)·t},
 * where {@code t} estimates the error. The estimate here is the root mean square of the imaginary parts of the
 * output's slots (the model's values are real, so the imaginary parts are error that grew like the real parts',
 * the estimate of Costache et al. that OpenFHE also uses), rounded up to a power of two so that it reveals
 * almost nothing itself. Every slot gets independent noise; since the canonical embedding is a scaled isometry,
 * that equals Gaussian noise on the decrypted polynomial's coefficients.
 *
 * <p>Flooding costs about {@code log2(σ/t)} bits of precision: s = 30 with τ = 1 costs ≈ 17 bits, which a
 * result at 2^-20 precision can afford only for coarse outputs (a class label, rounded scores). Off by default,
 * because in PolyHE's protocol decrypted results stay with the client.
 *
 * @param statisticalBits s, the statistical security in bits (0: off)
 * @param queries τ, the decryptions of related ciphertexts an adversary may see
 */
public record NoiseFlooding(int statisticalBits, int queries) {
    /** No flooding: decrypted values are returned as they are. */
    public static final NoiseFlooding OFF = new NoiseFlooding(0, 1);
    /** Bounds on s: beyond 128 bits the noise would drown any output CKKS can hold. */
    public static final int MAX_STATISTICAL_BITS = 128;

    public static final int MAX_QUERIES = 1 << 30;

    public NoiseFlooding {
        if (statisticalBits < 0 || statisticalBits > MAX_STATISTICAL_BITS) {
            throw new IllegalArgumentException("noise flooding: statistical security must be 0 (off) to "
                    + MAX_STATISTICAL_BITS + " bits, got " + statisticalBits);
        }
        if (queries < 1 || queries > MAX_QUERIES) {
            throw new IllegalArgumentException("noise flooding: the number of decryption queries must be 1 to "
                    + MAX_QUERIES + ", got " + queries);
        }
    }

    public boolean enabled() {
        return statisticalBits > 0;
    }

    /** σ for an error estimate t: √(12τ)·2^(s/2)·t. */
    public double sigma(double errorEstimate) {
        return Math.sqrt(12.0 * queries) * Math.pow(2, statisticalBits / 2.0) * errorEstimate;
    }

    /**
     * t: the root mean square of the given imaginary parts, rounded up to a power of two, and at least
     * {@code floor} (the rounding error of a fresh encoding, for a ciphertext whose imaginary parts came out
     * exactly zero).
     *
     * @param imaginaryParts the imaginary parts of the slots that hold output values (not the padding slots,
     *     whose error need not track the output's)
     */
    public static double errorEstimate(double[][] imaginaryParts, double floor) {
        double sum = 0;
        long n = 0;
        for (double[] im : imaginaryParts) {
            for (double v : im) {
                sum += v * v;
            }
            n += im.length;
        }
        double rms = n == 0 ? 0 : Math.sqrt(sum / n);
        double t = Math.max(rms, floor);
        return Math.pow(2, Math.ceil(Math.log(t) / Math.log(2)));
    }

    /** Adds N(0, σ²) to every value, in place. */
    public static void flood(double[] values, double sigma, Random random) {
        for (int i = 0; i < values.length; i++) {
            values[i] += sigma * random.nextGaussian();
        }
    }

    /**
     * What a flooded decryption did.
     *
     * @param errorEstimate t, as {@link #errorEstimate} found it
     * @param sigma the standard deviation of the noise added to every value
     */
    public record Applied(NoiseFlooding flooding, double errorEstimate, double sigma) {
        /** The bits of precision the noise costs, log2(σ/t). */
        public double bitsLost() {
            return Math.log(sigma / errorEstimate) / Math.log(2);
        }
    }
}
