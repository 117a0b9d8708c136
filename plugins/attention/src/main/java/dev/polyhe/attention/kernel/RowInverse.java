package dev.polyhe.attention.kernel;

import dev.polyhe.api.Options;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.arith.TensorOps;
import java.util.Map;
import java.util.Set;

/**
 * 1/d for a per-row denominator d: exactly (plaintext engines only) or by Goldschmidt on a domain [lo, hi].
 *
 * <p>{@code domainScale} serves the length-agnostic form: the configured domain is that of a row mean, and a
 * mean is a sum times 1/L. Rather than spending a level on ×1/L, the Goldschmidt approximation is built on
 * [L·lo, L·hi] and applied to the sum: Goldschmidt is scale-equivariant (its public scale becomes s/L, its
 * contraction e = 1 − s·mean is unchanged), so the result is 1/sum with exactly the error the mean-domain
 * approximation has on the mean.
 */
public abstract sealed class RowInverse permits RowInverse.Exact, RowInverse.Goldschmidt {
    public static final String GOLDSCHMIDT = "goldschmidt-inverse";
    /** {@code guess-degree} left to {@link #goldschmidt(Approximations, String, int, int, double, double)}. */
    public static final int AUTO_GUESS = -1;
    /** The largest first guess: its ⌈log2(m)⌉ + 1 levels fit in one bootstrap's 10 with room for e0 and n·y0. */
    public static final int MAX_GUESS_DEGREE = 127;
    /** The options of a mechanism's {@code division} that only Goldschmidt takes. */
    public static final Set<String> GOLDSCHMIDT_OPTIONS = Set.of("iterations", "guess-degree", "lo", "hi");

    public abstract <M> M inverse(TensorOps<M> ops, M denominator, double domainScale);

    /**
     * numerator / denominator per row, for a result needed to {@code workingBits} bits: by default numerator times
     * {@link #inverse}, all at workingBits + log2 κ, since 1/d spans κ ({@link #conditionNumber}) and an error relative
     * to its largest value is κ times larger on its smallest.
     */
    public <M> M divide(TensorOps<M> ops, M numerator, M denominator, double domainScale, double workingBits) {
        try (var p = ops.precision(workingBits + conditionBits())) {
            return ops.mul(numerator, inverse(ops, denominator, domainScale));
        }
    }

    public abstract boolean polynomial();

    /**
     * The geometric middle √(lo·hi) of the domain the inverse holds on, for denominators scaled by {@code domainScale};
     * NaN for exact division (no domain).
     */
    public abstract double domainMiddle(double domainScale);

    /**
     * κ = hi/lo of the domain: how much an error relative to the largest denominator grows at the smallest; 1 exact.
     */
    public abstract double conditionNumber();

    /** log2 κ: the bits of precision the spread of the denominators costs; 0 for exact division. */
    public double conditionBits() {
        double kappa = conditionNumber();
        return kappa > 1 ? Math.log(kappa) / Math.log(2) : 0;
    }

    public abstract String describe();

    public static RowInverse exact() {
        return new Exact();
    }

    /**
     * Goldschmidt through the host's {@code approximations}; checks the domain and iterations now, so that a
     * bad config fails when the kernel is created and names the option.
     */
    public static RowInverse goldschmidt(
            Approximations approximations, String owner, int iterations, double lo, double hi) {
        return goldschmidt(approximations, owner, iterations, 0, lo, hi);
    }

    /**
     * Goldschmidt from a Chebyshev first guess of degree {@code guessDegree} ({@link GuessedGoldschmidt}; 0: from the
     * public scale, as plain Goldschmidt), or, with {@link #AUTO_GUESS}, the one of 0, 15, 31, 63 and 127 with the
     * fewest levels (the smallest degree among equals): a wide domain (κ = 7e4: 22 levels plain, 16 with degree 127)
     * takes a guess, a narrow one none.
     */
    public static RowInverse goldschmidt(
            Approximations approximations, String owner, int iterations, int guessDegree, double lo, double hi) {
        if (!(lo > 0)) {
            throw new Options.InvalidOptionException(owner + ": option 'lo' = " + lo
                    + " is out of range; allowed: > 0 (the Goldschmidt domain of the denominator must exclude 0)");
        }
        if (!(hi > lo)) {
            throw new Options.InvalidOptionException(
                    owner + ": option 'hi' = " + hi + " must be greater than lo = " + lo);
        }
        if (guessDegree < AUTO_GUESS || guessDegree > MAX_GUESS_DEGREE) {
            throw new Options.InvalidOptionException(owner + ": option 'guess-degree' = " + guessDegree
                    + " is out of range; allowed: 0 (no first guess) .. " + MAX_GUESS_DEGREE + ", or auto");
        }
        Goldschmidt plain = new Goldschmidt(
                approximations, new Options(owner, Map.of("iterations", String.valueOf(iterations))), lo, hi);
        int plainDepth = plain.approximation(1).depth();
        if (guessDegree == 0) {
            return plain;
        }
        if (guessDegree > 0) {
            return new GuessedGoldschmidt(approximations, owner, iterations, guessDegree, lo, hi);
        }
        RowInverse best = plain;
        int bestDepth = plainDepth;
        for (int degree = 15; degree <= MAX_GUESS_DEGREE; degree = 2 * degree + 1) {
            GuessedGoldschmidt g = new GuessedGoldschmidt(approximations, owner, iterations, degree, lo, hi);
            if (g.depth() < bestDepth) {
                best = g;
                bestDepth = g.depth();
            }
        }
        return best;
    }

    static final class Exact extends RowInverse {
        @Override
        public <M> M inverse(TensorOps<M> ops, M denominator, double domainScale) {
            return ops.exact(denominator, "1/x", x -> 1 / x);
        }

        @Override
        public boolean polynomial() {
            return false;
        }

        @Override
        public double domainMiddle(double domainScale) {
            return Double.NaN;
        }

        @Override
        public double conditionNumber() {
            return 1;
        }

        @Override
        public String describe() {
            return "exact division";
        }
    }

    /** Goldschmidt from the public scale 2/(lo+hi), and the domain it shares with the start from a first guess. */
    static sealed class Goldschmidt extends RowInverse permits GuessedGoldschmidt {
        final Approximations approximations;
        final Options options;
        final double lo;
        final double hi;

        Goldschmidt(Approximations approximations, Options options, double lo, double hi) {
            this.approximations = approximations;
            this.options = options;
            this.lo = lo;
            this.hi = hi;
        }

        Approximation approximation(double domainScale) {
            ApproximationSpec spec = new ApproximationSpec(
                    "inverse", x -> 1 / x, new Domain(domainScale * lo, domainScale * hi), options);
            return approximations.approximate(GOLDSCHMIDT, spec);
        }

        @Override
        public <M> M inverse(TensorOps<M> ops, M denominator, double domainScale) {
            return approximation(domainScale).evaluateOnDomain(ops, denominator);
        }

        @Override
        public boolean polynomial() {
            return true;
        }

        @Override
        public double domainMiddle(double domainScale) {
            return domainScale * Math.sqrt(lo * hi);
        }

        @Override
        public double conditionNumber() {
            return hi / lo;
        }

        @Override
        public String describe() {
            return "goldschmidt(iterations=" + options.values().get("iterations") + ", domain [" + lo + ", " + hi
                    + "])";
        }
    }
}
