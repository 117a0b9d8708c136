package dev.polyhe.approx.chebyshev;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.PolynomialApproximator;
import dev.polyhe.api.approx.TargetFunctions;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;

/**
 * Service {@code chebyshev}: interpolates the spec's target (or, without one, the named function of
 * {@link TargetFunctions}) on the spec's domain. Option {@code degree} (1..255, default 15).
 */
public final class ChebyshevApproximator implements PolynomialApproximator {
    public static final String NAME = "chebyshev";
    public static final int DEFAULT_DEGREE = 15;
    public static final int MAX_DEGREE = 255;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String apiVersion() {
        return PolyHeApi.VERSION;
    }

    @Override
    public String description() {
        return "Chebyshev interpolation of any function on [a, b], Paterson–Stockmeyer evaluation, depth ⌈log2(d+1)⌉ (+1 for a non-integer map)";
    }

    @Override
    public Approximation approximate(ApproximationSpec spec) {
        spec.options().requireOnly(Set.of("degree"));
        int degree = spec.options().getInt("degree", DEFAULT_DEGREE, 1, MAX_DEGREE);
        DoubleUnaryOperator target = spec.target() != null ? spec.target() : TargetFunctions.named(spec.function());
        return ChebyshevSeries.interpolate(NAME, spec.function(), target, spec.domain(), degree);
    }
}
