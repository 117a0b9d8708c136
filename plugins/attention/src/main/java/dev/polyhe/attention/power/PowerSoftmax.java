package dev.polyhe.attention.power;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.EvenPower;
import dev.polyhe.attention.kernel.MultiplicativeMask;

/**
 * PowerSoftmax (paper Eq. 2) with its variants: w_j = x_j^p / (ε + Σ_i x_i^p) on masked scores x = s ⊙ M
 * (Eq. 5 and App. I); optionally the stable form (Eq. 6, scores divided by max|x| + δ first; plaintext only)
 * and the length-agnostic form (Eq. 7), (x_j/L')^p / (ε/L + Mean x^p) with L' = L^{1/p} and L the number of
 * keys a row sees (t + 1 for row t of a causal mask, every key without one), whose division only ever sees a mean,
 * so one Goldschmidt domain serves every sequence length and every row of one.
 *
 * <p>Depth without mask and stable scaling: ⌈log2 p⌉ for x^p, then the division, then one product.
 */
final class PowerSoftmax implements AttentionKernel {
    private final String name;
    private final PowerSoftmaxSettings settings;

    PowerSoftmax(String name, PowerSoftmaxSettings settings) {
        this.name = name;
        this.settings = settings;
    }

    @Override
    public String describe() {
        StringBuilder sb = new StringBuilder(name)
                .append("(p=")
                .append(settings.p())
                .append(", epsilon=")
                .append(settings.epsilon());
        if (settings.stable()) {
            sb.append(", stable, delta=").append(settings.stableDelta());
        }
        if (settings.lengthAgnostic()) {
            sb.append(", length-agnostic");
        }
        return sb.append(", ")
                .append(settings.division().describe())
                .append(')')
                .toString();
    }

    @Override
    public boolean polynomial() {
        return !settings.stable() && settings.division().polynomial();
    }

    /**
     * The precision the weights are computed to, before the division's conditioning: every error in x^p and in the
     * denominator reaches the weights amplified by up to κ = hi/lo of the division's domain (a row whose
     * denominator is near lo holds values near the largest scaled by lo/hi), so they are computed to this many bits
     * plus log2 κ ({@code TensorOps#precision}); the division asks for what its own steps need
     * ({@code RowInverse#divide}).
     */
    static final double WORKING_BITS = 16;

    @Override
    public <M> M normalize(TensorOps<M> ops, M scores, Matrix mask) {
        // x^p / (ε + Σ x^p) lies in [0, 1], and so does Goldschmidt's, which approaches 1/d from below on its
        // domain: engines that track magnitudes would otherwise carry interval arithmetic's bound through the
        // division (1e10 and more) into the attention's output and the residual stream
        return ops.bound(weights(ops, scores, mask), 0, 1);
    }

    /** The numerator and denominator of the weights, and the factor from the denominator to the division's domain. */
    private record Fraction<M>(M numerator, M denominator, double domainScale) {}

    private <M> M weights(TensorOps<M> ops, M scores, Matrix mask) {
        Fraction<M> f;
        try (var p = ops.precision(WORKING_BITS + settings.division().conditionBits())) {
            f = fraction(ops, scores, mask);
        }
        return settings.division().divide(ops, f.numerator(), f.denominator(), f.domainScale(), WORKING_BITS);
    }

    private <M> Fraction<M> fraction(TensorOps<M> ops, M scores, Matrix mask) {
        int keys = ops.cols(scores);
        boolean perRow = settings.lengthAgnostic() && settings.division().polynomial() && mask != null;
        Matrix inverseLengths = perRow ? MultiplicativeMask.inverseVisibleCounts(mask) : null;
        // per-row L: 1/L_t^{1/p} rides in the mask's own product (no level), so x^p comes out divided by L_t
        M x = MultiplicativeMask.apply(ops, scores, perRow ? perRowLength(mask, inverseLengths) : mask);
        if (settings.stable()) {
            // Eq. 6: PowerSoftmax is invariant to x ↦ x/c, c > 0; c = max|x| + δ keeps |x/c| < 1.
            M c = ops.addConstant(ops.rowMaxAbs(x), settings.stableDelta());
            x = ops.mul(x, ops.exact(c, "1/x", v -> 1 / v));
        }
        double domainScale = settings.lengthAgnostic() && !perRow ? keys : 1;
        int k = conditioning(settings.division().domainMiddle(domainScale));
        if (k > 1) {
            x = ops.mulConstant(x, k); // an integer: no level
        }
        double kp = Math.pow(k, settings.p());
        M powered = EvenPower.of(ops, x, settings.p());
        if (!settings.lengthAgnostic()) {
            return new Fraction<>(powered, ops.addConstant(ops.rowSums(powered), settings.epsilon() * kp), kp);
        }
        if (!settings.division().polynomial()) {
            // Eq. 7 literally; with exact division nothing is gained by folding the constants.
            double lPrime = Math.pow(keys, 1.0 / settings.p());
            M numerator = EvenPower.of(ops, ops.mulConstant(x, 1 / lPrime), settings.p());
            return new Fraction<>(numerator, ops.addConstant(ops.rowMeans(powered), settings.epsilon() / keys), 1);
        }
        if (perRow) {
            // Eq. 7 with each row's own L_t: x^p already carries 1/L_t, and ε/L_t is added before the row sums as a
            // public plaintext (no level); the weights (x^p/L_t)/(ε/L_t + Σx^p/L_t) are PowerSoftmax's, but the
            // denominators are means, whose spread does not grow along a causal sequence as the sums' does
            M withEpsilon = ops.addPlain(powered, epsilonPerRow(inverseLengths, settings.epsilon() * kp));
            return new Fraction<>(powered, ops.rowSums(withEpsilon), kp);
        }
        // Eq. 7 with its public 1/L folded into Goldschmidt's public scale (see RowInverse): the same values as
        // (x/L')^p · 1/(ε/L + Mean x^p) with the mean-domain approximation, and no level spent on ×1/L.
        return new Fraction<>(powered, ops.addConstant(ops.rowSums(powered), settings.epsilon() * kp), keys * kp);
    }

    /** The mask with row t scaled by L_t^{-1/p}, L_t its visible keys: (x ⊙ it)^p is x^p/L_t where visible. */
    private Matrix perRowLength(Matrix mask, Matrix inverse) {
        double[] out = new double[mask.rows() * mask.cols()];
        for (int r = 0; r < mask.rows(); r++) {
            for (int c = 0; c < mask.cols(); c++) {
                out[r * mask.cols() + c] = mask.get(r, c) * Math.pow(inverse.get(r, c), 1.0 / settings.p());
            }
        }
        return new Matrix(mask.rows(), mask.cols(), out);
    }

    /**
     * ε/L_t spread evenly over row t's entries ({@code inverse}: 1/L_t in every entry of row t), so that a row sum
     * adds exactly ε/L_t.
     */
    private static Matrix epsilonPerRow(Matrix inverse, double epsilon) {
        double[] out = new double[inverse.rows() * inverse.cols()];
        for (int i = 0; i < out.length; i++) {
            out[i] = epsilon * inverse.data()[i] / inverse.cols();
        }
        return new Matrix(inverse.rows(), inverse.cols(), out);
    }

    /**
     * The integer k ≥ 1 that puts the division's domain around 1: scores times k make x^p and the denominator k^p
     * times larger and leave the weights as they are (PowerSoftmax is invariant to x ↦ k·x once ε scales with it),
     * but with k^p ≈ 1/√(lo·hi) neither the denominator nor its inverse strays further from 1 than √(hi/lo). With
     * ε = 1e-3 and small scores the inverse is otherwise near 1/ε = 1 000, which bootstrapping cannot refresh
     * accurately, and x^p near 1e-5, which it refreshes with a few bits. An integer costs no level; 1 when the domain
     * is already at or above 1, or the division is exact (no domain).
     */
    private int conditioning(double domainMiddle) {
        if (!(domainMiddle > 0) || domainMiddle >= 1) {
            return 1;
        }
        double k = Math.pow(domainMiddle, -1.0 / settings.p());
        return (int) Math.max(1, Math.min(Math.round(k), 1 << 20));
    }
}
