package dev.polyhe.approx.chebyshev;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.approx.polynomial.DeclaredApproximator;
import java.util.Set;

/** Service {@value GeluSigmoid#NAME}: option {@code degree} of the sigmoid (1..255, default 31:
 * on [−8, 8] that makes the polynomial as close to x·σ(1.702x) as the identity itself is to GELU). */
public final class GeluSigmoidApproximator extends DeclaredApproximator {
    public static final int DEFAULT_DEGREE = 31;

    public GeluSigmoidApproximator() {
        super(GeluSigmoid.NAME, "GELU(x) = x·σ(1.702x) with a Chebyshev sigmoid on [1.702a, 1.702b]");
    }

    @Override
    public Approximation approximate(ApproximationSpec spec) {
        spec.options().requireOnly(Set.of("degree"));
        int degree = spec.options().getInt("degree", DEFAULT_DEGREE, 1, ChebyshevApproximator.MAX_DEGREE);
        return new GeluSigmoid(spec.domain(), degree);
    }
}
