package dev.polyhe.attention.kernel;

import dev.polyhe.api.Options;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.arith.TensorOps;
import java.util.Map;

/**
 * Goldschmidt division started from a Chebyshev first guess y0 ≈ 1/d, for a domain [lo, hi] spanning κ = hi/lo.
 *
 * <p>Plain Goldschmidt starts from the public scale s = 2/(lo+hi): e = 1 − s·d is within ρ = (κ−1)/(κ+1) of 0, and
 * with κ ≈ 7e4 (a causal first row beside a full one) it takes 21 iterations, 22 levels. The interpolant y0 of 1/x
 * at the m Chebyshev nodes of [lo, hi] (degree m − 1, from the host's {@code chebyshev} approximator) is the best
 * relative guess of its degree: 1 − x·y0(x) is a degree-m polynomial that is 1 at 0 and vanishes at the nodes,
 * T_m(t(x))/T_m(t(0)), so |1 − d·y0| ≤ ρ' = 1/cosh(m·arccosh((κ+1)/(κ−1))) ≈ 1/cosh(2m/√κ): m = 128 gives 0.67 at κ
 * = 7e4, and Goldschmidt then needs 7 iterations, not 21, for about log2 m + 1 levels of guess.
 *
 * <p>The program, for a numerator n (PowerSoftmax's x^p) and its row's d: y0 = guess(d), e0 = 1 − d·y0, w0 = n·y0,
 * P = (1 + e0)(1 + e0²)(1 + e0⁴)⋯ (k factors), and n/d ≈ w0·P, exactly n·(1 − e0^{2^k})/d. Errors in y0 do not
 * reach the quotient, only e0, as long as e0 and w0 see the same y0, so y0 is computed once, with the levels both
 * uses need ({@link TensorOps#reserve}). What it buys besides levels is conditioning: y0, like 1/d, spans κ, and
 * an error relative to its largest value is κ times larger on its smallest, so a refresh of 1/d or of the running
 * product must be precise (two bootstraps); e0, e0^{2^i}, P ∈ [1 − ρ', 1/(1 − ρ')] and w0 ∈ [0, 1 + ρ'] do not span
 * κ, and the iterations run at the precision of their result. Only y0 needs some of κ's bits: an error of y0 moves
 * e0 by the same relative amount, which the iterations absorb while |e0| stays below ρ_eff (see {@link #SLACK}).
 *
 * <p>Inputs above hi leave the guess's domain, where T_m grows fast: like plain Goldschmidt (which diverges above
 * lo + hi) the domain must bound the denominators; calibrated domains carry a margin for that.
 */
final class GuessedGoldschmidt extends RowInverse.Goldschmidt {
    /**
     * The part of 1 − ρ' that y0's own error may take from the iterations' contraction: |e0| ≤ ρ_eff = ρ' + SLACK·(1 −
     * ρ'), so y0 is computed to log2 κ + log2(1/(SLACK·(1 − ρ'))) bits.
     */
    static final double SLACK = 0.25;
    /** The contraction iteration counts are sized for at least (as plain Goldschmidt's, see goldschmidt-inverse). */
    static final double ROBUST_CONTRACTION = 0.5;
    /**
     * The iterations' truncation, ρ_eff^{2^k}, relative to the quotient: 2^-40, far below the
     * 20 to 30 bits a bootstrapped ciphertext keeps and 1e-12 on an attention weight, under every error the polynomial
     * model reports; iterating on to float64's 2^-53 costs a level wherever 40 and 53 bits straddle a power of two of
     * the contraction's (six Pythia-70M-shaped layers: 12 bootstrap calls).
     */
    static final double TRUNCATION = 0x1p-40;

    private final int maxIterations;
    private final int guessDegree;
    /**
     * ρ' = max |1 − x·y0(x)| on the domain: the analytic bound, or the one measured on a dense grid where the
     * coefficients' rounding made it worse.
     */
    private final double guessContraction;
    /**
     * Goldschmidt's iterations after the guess: until ρ_eff^{2^k} < {@link #TRUNCATION} on the domain, and at most the
     * configured iterations.
     */
    private final int iterations;

    GuessedGoldschmidt(
            Approximations approximations, String owner, int maxIterations, int guessDegree, double lo, double hi) {
        super(approximations, new Options(owner, Map.of("iterations", String.valueOf(maxIterations))), lo, hi);
        this.maxIterations = maxIterations;
        this.guessDegree = guessDegree;
        double kappa = hi / lo;
        double analytic = 1 / Math.cosh((guessDegree + 1) * acosh((kappa + 1) / (kappa - 1)));
        this.guessContraction = Math.max(analytic, measuredContraction(guess(1)));
        double rho = effectiveContraction();
        int k = 1;
        for (double power = rho * rho; k < maxIterations && power >= TRUNCATION; power *= power) {
            k++;
        }
        this.iterations = k;
    }

    /**
     * Guesses measured so far, by what they are ({@link Approximation#describe}: approximator, degree, domain): a
     * measure evaluates the guess at 20 001 points, and every attention made for a model (each layer, each query of a
     * server, the plan and the run) asks for the same few guesses again.
     */
    private static final Map<String, Double> MEASURED =
            java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Double> eldest) {
                    return size() > 1024;
                }
            });

    /** max |1 − x·y0(x)| on the guess's domain, measured on its dense grid. */
    private static double measuredContraction(Approximation guess) {
        String key = guess.getClass().getName() + ":" + guess.describe();
        Double known = MEASURED.get(key);
        if (known == null) {
            known = guess.maxRelativeError();
            MEASURED.put(key, known);
        }
        return known;
    }

    /**
     * The first guess for denominators scaled by {@code domainScale} (Chebyshev interpolation is scale-equivariant).
     */
    Approximation guess(double domainScale) {
        ApproximationSpec spec = new ApproximationSpec(
                "1/x (first guess)",
                x -> 1 / x,
                new Domain(domainScale * lo, domainScale * hi),
                new Options(options.owner(), Map.of("degree", String.valueOf(guessDegree))));
        return approximations.approximate("chebyshev", spec);
    }

    /** ρ_eff: the contraction the iterations are sized for, y0's own error included. */
    double effectiveContraction() {
        return Math.max(guessContraction + SLACK * (1 - guessContraction), ROBUST_CONTRACTION);
    }

    /**
     * Levels from the denominator to the quotient's factor P, as plain Goldschmidt's to 1/d: the guess, e0, then
     * P_k one level behind e_{k−1} = e0^{2^{k−1}}.
     */
    int depth() {
        return guess(1).depth() + 1 + iterations;
    }

    @Override
    public <M> M inverse(TensorOps<M> ops, M denominator, double domainScale) {
        return quotient(ops, null, denominator, domainScale, 0);
    }

    @Override
    public <M> M divide(TensorOps<M> ops, M numerator, M denominator, double domainScale, double workingBits) {
        return quotient(ops, numerator, denominator, domainScale, workingBits);
    }

    private <M> M quotient(TensorOps<M> ops, M numerator, M denominator, double domainScale, double workingBits) {
        Approximation g = guess(domainScale);
        double rho = effectiveContraction();
        double kappaBits = conditionBits();
        double lower = domainScale * lo;
        // every value's range, announced: engines that track magnitudes scale values by them before a refresh, and
        // interval arithmetic through the guess's basis, or through 1 − d·y0, loses them by orders
        M d = ops.bound(denominator, lower, domainScale * hi);
        M y0;
        try (var p = ops.precision(kappaBits + log2(1 / (SLACK * (1 - guessContraction))))) {
            // the levels of the guess and of both uses of y0 at once: a y0 refreshed between e0 and w0 would not cancel
            y0 = g.evaluate(ops, ops.reserve(d, g.depth() + 2, domainScale * hi));
            y0 = ops.reserve(ops.bound(y0, 0, (1 + rho) / lower), 2, (1 + rho) / lower);
        }
        // P runs scaled by c = 1 − ρ, within [c/(1 + ρ), 1]: bootstrapping is most accurate on values up to 1, and a
        // value above 1 at level 0 has no level left to be scaled down; w carries 1/c instead
        double c = 1 - rho;
        M e;
        M product;
        M w;
        try (var p = ops.precision(workingBits + kappaBits)) {
            e = ops.bound(ops.addConstant(ops.mulConstant(ops.mul(d, y0), -1), 1), -rho, rho);
            product = ops.bound(ops.addConstant(scaledProduct(ops, d, y0, -c), 2 * c), 0, 1);
            w = numerator == null
                    ? ops.mulConstant(y0, 1 / c)
                    : ops.bound(scaledProduct(ops, numerator, y0, 1 / c), 0, (1 + rho) / c);
        }
        // c·P = c·(1 − e0^{2^i})/(1 − e0) stays within [c/(1 + ρ), 1], and its errors count against 1. An error in
        // e_{i−1} = e0^{2^{i−1}}, refreshed for iteration i, reaches the quotient times 1/(1 − |e_{i−1}|), the rest of
        // the
        // product's sensitivity to it, which falls as e does: each iteration asks for what it needs
        double ePower = rho;
        for (int i = 1; i < iterations; i++) {
            try (var p = ops.precision(workingBits + log2(1 / (1 - ePower)))) {
                e = ops.square(e);
                product = ops.bound(ops.mul(product, ops.addConstant(e, 1)), 0, 1);
            }
            ePower *= ePower;
        }
        try (var p = ops.precision(workingBits + log2(1 / (1 - ePower)))) {
            return ops.mul(w, product);
        }
    }

    /** k·a·b with the constant on the operand that has levels to spare, so that it costs none. */
    private static <M> M scaledProduct(TensorOps<M> ops, M a, M b, double k) {
        return ops.depth(a) <= ops.depth(b) ? ops.mul(ops.mulConstant(a, k), b) : ops.mul(a, ops.mulConstant(b, k));
    }

    @Override
    public String describe() {
        return "goldschmidt(guess-degree=" + guessDegree + ", iterations=" + iterations + " of " + maxIterations
                + ", domain [" + lo + ", " + hi + "])";
    }

    private static double acosh(double x) {
        return Math.log(x + Math.sqrt(x * x - 1));
    }

    private static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }
}
