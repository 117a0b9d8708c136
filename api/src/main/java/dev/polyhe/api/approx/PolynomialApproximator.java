package dev.polyhe.api.approx;

import dev.polyhe.api.PolyHePlugin;

/**
 * Service: turns a spec (function, domain, degree or iterations) into an {@link Approximation}. Names in use:
 * {@code goldschmidt-inverse}, {@code goldschmidt-inv-sqrt}, {@code chebyshev}, {@code gelu-sigmoid},
 * {@code taylor-exp}.
 */
public interface PolynomialApproximator extends PolyHePlugin {
    /**
     * @param spec the function, its domain and the approximator's options
     * @return the approximation, its depth and error measured
     * @throws IllegalArgumentException (often {@link dev.polyhe.api.Options.InvalidOptionException}) naming the
     *         option or domain that cannot be served and what is allowed
     */
    Approximation approximate(ApproximationSpec spec);
}
