package dev.polyhe.api.he;

/** Canonical-embedding encoding of real or complex vectors into slots. */
public interface Encoder {
    /**
     * Encodes {@code values} (at most {@code slots} of them, zero-padded) at a level and scale.
     *
     * @param slots a power of two ≤ N/2; fewer slots replicate the vector (sparse packing)
     */
    Plaintext encode(double[] values, int slots, int level, double scale);

    /** Encodes complex values given as real and imaginary parts. */
    Plaintext encodeComplex(double[] real, double[] imag, int slots, int level, double scale);

    /** The real parts of the slots. */
    double[] decode(Plaintext plaintext);

    /** Real parts in [0], imaginary parts in [1]. */
    double[][] decodeComplex(Plaintext plaintext);
}
