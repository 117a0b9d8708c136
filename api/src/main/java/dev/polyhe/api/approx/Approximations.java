package dev.polyhe.api.approx;

import java.util.Set;

/**
 * The lookup of approximators by name that the host hands to plugins needing one (an attention mechanism
 * needing Goldschmidt division), so that plugins never import each other.
 */
public interface Approximations {
    /** @throws IllegalArgumentException naming the unknown approximator and listing the known ones */
    PolynomialApproximator approximator(String name);

    Set<String> names();

    default Approximation approximate(String approximator, ApproximationSpec spec) {
        return approximator(approximator).approximate(spec);
    }
}
