package dev.polyhe.approx.chebyshev;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.TargetFunctions;
import dev.polyhe.approx.polynomial.DeclaredApproximator;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;

/**
 * Service {@code chebyshev}: interpolates the spec's target (or, without one, the named function of
 * {@link TargetFunctions}) on the spec's domain. Option {@code degree} (1..255, default 15).
 */
public final class ChebyshevApproximator extends DeclaredApproximator {
    public static final String NAME = "chebyshev";
    public static final int DEFAULT_DEGREE = 15;
    public static final int MAX_DEGREE = 255;

    public ChebyshevApproximator() {
        super(
                NAME,
                "Chebyshev interpolation of any function on [a, b], Paterson–Stockmeyer evaluation, depth "
                        + "⌈log2(d+1)⌉ (+1 for a non-integer map)");
    }

    @Override
    public Approximation approximate(ApproximationSpec spec) {
        spec.options().requireOnly(Set.of("degree"));
        int degree = spec.options().getInt("degree", DEFAULT_DEGREE, 1, MAX_DEGREE);
        DoubleUnaryOperator target = spec.target() != null ? spec.target() : TargetFunctions.named(spec.function());
        return ChebyshevSeries.interpolate(NAME, spec.function(), target, spec.domain(), degree);
    }
}
