package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;

/**
 * Estimated seconds of an evaluator call or an encode at N = 2^16, per limb of its operand, for the ckks-cpu backend
 * at 2 threads on the 2-core machine: a key switch from the rotation benchmark (460 ms a rotation at one thread on
 * the full chain), the rest from a measured Pythia-70M-shaped layer (2026-12-06: 16 497 products in 64 s, 1 382
 * rescales in 14.7 s, 15 bootstrap calls in 213 s, 97 826 encoded limbs in 104 s). There the estimate came within 5 %
 * of the whole evaluation (476.5 s against 501.7 s) and within a factor of two of each operator. It is for comparing
 * plans and for a planning run's {@link WorkSpan}, whose parallelism depends on the relative costs alone, not for
 * quoting times. Other ring sizes scale by N log N.
 */
final class CostModel {
    /** A key switch (rotation, relinearization, conjugation) per limb of its operand. */
    static final double KEY_SWITCH_PER_LIMB = 9e-3;
    /** A further rotation hoisted on the same decomposition, as a share of a key switch. */
    static final double HOISTED_SHARE = 0.4;
    /** A ciphertext product's tensoring (no key switch) per limb. */
    static final double TENSOR_PER_LIMB = 0.3e-3;
    /** A plaintext product, a sum, a constant product per limb. */
    static final double ELEMENTWISE_PER_LIMB = 0.15e-3;
    /** A rescale per limb (an inverse and a forward NTT of a limb each). */
    static final double RESCALE_PER_LIMB = 1.6e-3;
    /** A bootstrap call, full slots, one or a pair of ciphertexts. */
    static final double BOOTSTRAP = 14.2;
    /** An encode per limb (its NTT; 15 392 encodes of 97 826 limbs in 104 s). */
    static final double ENCODE_PER_LIMB = 1.06e-3;

    private CostModel() {}

    /**
     * The estimated seconds of {@code method} on {@code args}, whose first ciphertext is {@code first} (null for
     * none: no work on ciphertexts), in a ring of degree {@code ringDegree}.
     */
    static double seconds(String method, Ciphertext first, Object[] args, int ringDegree) {
        if (first == null) {
            return 0;
        }
        double limbs = first.level() + 1;
        double ring = ringFactor(ringDegree);
        double ks = KEY_SWITCH_PER_LIMB * limbs * ring;
        double elementwise = ELEMENTWISE_PER_LIMB * limbs * ring;
        return switch (method) {
            case "rotate", "conjugate" -> ks;
            case "rotateHoisted" -> ks * (1 + HOISTED_SHARE * (((int[]) args[1]).length - 1));
            case "rotateSum", "rotateSumAndRescale" -> {
                int n = ((Ciphertext[]) args[0]).length;
                yield ks * (1 + HOISTED_SHARE * (n - 1))
                        + (method.equals("rotateSumAndRescale") ? RESCALE_PER_LIMB * limbs * ring : 0);
            }
            case "multiply" -> ks + TENSOR_PER_LIMB * limbs * ring;
            case "multiplyAndRescale" -> ks + (TENSOR_PER_LIMB + RESCALE_PER_LIMB) * limbs * ring;
            case "multiplySum" -> ks + TENSOR_PER_LIMB * limbs * ring * ((Ciphertext[]) args[0]).length;
            case "rescale" -> RESCALE_PER_LIMB * limbs * ring;
            case "bootstrap", "bootstrapPair" -> BOOTSTRAP * ring;
            case "multiplyPlainSum" -> elementwise * ((Ciphertext[]) args[1]).length;
            case "dropToLevel" -> 0;
            default -> elementwise;
        };
    }

    /** The estimated seconds of encoding one limb of a plaintext in a ring of degree {@code ringDegree}. */
    static double encodePerLimb(int ringDegree) {
        return ENCODE_PER_LIMB * ringFactor(ringDegree);
    }

    private static double ringFactor(int ringDegree) {
        return ringDegree * Math.log(ringDegree) / (65536 * Math.log(65536));
    }
}
