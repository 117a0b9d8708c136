package dev.polyhe.approx.goldschmidt;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.approx.polynomial.DeclaredApproximator;
import java.util.Set;

/** Service {@value GoldschmidtInverse#NAME}: option {@code iterations} (1..30, default 21, as in the paper). */
public final class GoldschmidtInverseApproximator extends DeclaredApproximator {
    public static final int DEFAULT_ITERATIONS = 21;
    public static final int MAX_ITERATIONS = 30;

    public GoldschmidtInverseApproximator() {
        super(
                GoldschmidtInverse.NAME,
                "Goldschmidt division 1/x on [a, b] ⊂ (0, ∞); relative error ((b−a)/(b+a))^(2^n), depth n+1");
    }

    @Override
    public Approximation approximate(ApproximationSpec spec) {
        spec.options().requireOnly(Set.of("iterations"));
        int iterations = spec.options().getInt("iterations", DEFAULT_ITERATIONS, 1, MAX_ITERATIONS);
        return new GoldschmidtInverse(PositiveDomain.require(name(), "1/x", spec.domain()), iterations);
    }
}
