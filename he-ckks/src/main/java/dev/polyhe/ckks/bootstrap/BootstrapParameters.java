package dev.polyhe.ckks.bootstrap;

import dev.polyhe.ckks.scheme.SchemeParameters;

/**
 * The shape of the bootstrapping circuit for one parameter set: levels of CoeffsToSlots and SlotsToCoeffs,
 * and the range K of the integer part I that ModRaise adds (t = Δ·m + e + q_0·I).
 *
 * <p>Why K: a coefficient of I is the rounded (c0 + c1·s)/q_0 with c0, c1 close to uniform on (−q_0/2, q_0/2]
 * and s ternary with h non-zero entries, so it is a sum of h + 1 uniforms of variance 1/12: close to a normal
 * of standard deviation σ = sqrt((h + 1)/12). K = ceil(7σ) puts the chance that one of N coefficients leaves
 * [−K, K] below N·2.6e-12 (2^-26 at N = 2^12, 2^-22 at 2^16). For h = 64: σ = 2.33, K = 17. A key set with a
 * dense (uniform ternary) secret bootstraps through the sparse-secret encapsulation ({@link
 * SecretEncapsulation}), so its K is that of the ephemeral weight: h = 32, σ = 1.66, K = 12.
 */
public record BootstrapParameters(int coeffsToSlotsLevels, int slotsToCoeffsLevels, int modulusRange) {
    /** The Hamming weight of the ephemeral sparse secret of a dense key set (Lattigo's default as well). */
    public static final int EPHEMERAL_HAMMING_WEIGHT = 32;

    public BootstrapParameters {
        if (coeffsToSlotsLevels < 1 || slotsToCoeffsLevels < 1) {
            throw new IllegalArgumentException("CoeffsToSlots and SlotsToCoeffs need at least one level each");
        }
        if (modulusRange < 1) {
            throw new IllegalArgumentException("modulusRange K = " + modulusRange + " must be positive");
        }
    }

    /** Defaults: three levels for each linear transform, K from the secret's Hamming weight. */
    public static BootstrapParameters of(SchemeParameters params) {
        return new BootstrapParameters(3, 3, rangeFor(params));
    }

    static int rangeFor(SchemeParameters params) {
        int h = encapsulates(params)
                ? EPHEMERAL_HAMMING_WEIGHT
                : params.literal().hammingWeight();
        return (int) Math.ceil(7 * Math.sqrt((h + 1) / 12.0));
    }

    /** Whether these parameters bootstrap through an ephemeral sparse secret: a dense key-set secret does. */
    public static boolean encapsulates(SchemeParameters params) {
        return params.literal().hammingWeight() == 0;
    }

    /** The bound B of the sine's input y = t/q_0: K plus the message's share Δ·m/q_0 (at most 1/2). */
    double sineBound() {
        return modulusRange + 0.5;
    }
}
