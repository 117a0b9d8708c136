package dev.polyhe.approx.goldschmidt;

import dev.polyhe.api.approx.Domain;

/** Goldschmidt's iterations need a domain strictly right of 0, where 1/x and 1/√x are bounded. */
final class PositiveDomain {
    private PositiveDomain() {}

    static Domain require(String approximator, String function, Domain domain) {
        if (!(domain.lo() > 0)) {
            throw new IllegalArgumentException(approximator + ": domain " + domain + " must lie in (0, ∞): " + function
                    + " is unbounded at 0 and undefined below it; use a lower bound > 0 (for the ε-Lipschitz"
                    + " PowerSoftmax denominator ε + Σx^p that is lo = ε)");
        }
        return domain;
    }

    /** The public scale 2/(a+b): maps [a, b] onto [2a/(a+b), 2b/(a+b)] ⊂ (0, 2), symmetric about 1. */
    static double scale(Domain domain) {
        return 2 / (domain.lo() + domain.hi());
    }

    /**
     * The least contraction the iteration counts are sized for, whatever the domain: inputs with |1 − s·x| up to it
     * (a narrow domain's centre ±50 %) converge as fully as the domain's own.
     */
    static final double ROBUST_CONTRACTION = 0.5;

    /** ρ = (b−a)/(b+a) = max |1 − s·x| over [a, b]: the contraction Goldschmidt starts from. */
    static double contraction(Domain domain) {
        return (domain.hi() - domain.lo()) / (domain.hi() + domain.lo());
    }
}
