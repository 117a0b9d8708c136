package dev.polyhe.approx.goldschmidt;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.approx.polynomial.DeclaredApproximator;
import java.util.Set;

/** Service {@value GoldschmidtInverseSqrt#NAME}: option {@code iterations} (1..20, default 10). */
public final class GoldschmidtInverseSqrtApproximator extends DeclaredApproximator {
    public static final int DEFAULT_ITERATIONS = 10;
    public static final int MAX_ITERATIONS = 20;

    public GoldschmidtInverseSqrtApproximator() {
        super(
                GoldschmidtInverseSqrt.NAME,
                "Goldschmidt inverse square root 1/√x on [a, b] ⊂ (0, ∞) for LayerNorm; depth 2n");
    }

    @Override
    public Approximation approximate(ApproximationSpec spec) {
        spec.options().requireOnly(Set.of("iterations"));
        int iterations = spec.options().getInt("iterations", DEFAULT_ITERATIONS, 1, MAX_ITERATIONS);
        return new GoldschmidtInverseSqrt(PositiveDomain.require(name(), "1/√x", spec.domain()), iterations);
    }
}
