package dev.polyhe.approx.chebyshev;

import dev.polyhe.api.approx.Domain;
import java.util.function.DoubleUnaryOperator;

/**
 * Coefficients of the polynomial of degree d that interpolates f at the d+1 Chebyshev nodes of [a, b],
 * in the Chebyshev basis of the mapped variable t = (2x − a − b)/(b − a) ∈ [−1, 1]. Near-minimax for smooth
 * functions (within a log factor of the best polynomial), computed by a discrete cosine transform.
 */
public final class ChebyshevInterpolation {
    /** Coefficients below this fraction of the largest are rounding noise (e.g. the even terms of an odd f). */
    private static final double NEGLIGIBLE = 1e-14;

    private ChebyshevInterpolation() {}

    /** @throws IllegalArgumentException naming the node where {@code f} is not finite */
    public static double[] coefficients(String function, DoubleUnaryOperator f, Domain domain, int degree) {
        int n = degree + 1;
        double mid = (domain.lo() + domain.hi()) / 2;
        double half = (domain.hi() - domain.lo()) / 2;
        double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            double x = mid + half * Math.cos(Math.PI * (i + 0.5) / n);
            values[i] = f.applyAsDouble(x);
            if (!Double.isFinite(values[i])) {
                throw new IllegalArgumentException("target '" + function + "' is not finite at x = " + x + " in domain "
                        + domain + " (value " + values[i] + "); choose a domain where it is bounded");
            }
        }
        double[] c = new double[n];
        double largest = 0;
        for (int j = 0; j < n; j++) {
            double sum = 0;
            for (int i = 0; i < n; i++) {
                sum += values[i] * Math.cos(Math.PI * j * (i + 0.5) / n);
            }
            c[j] = (j == 0 ? 1.0 : 2.0) * sum / n;
            largest = Math.max(largest, Math.abs(c[j]));
        }
        for (int j = 0; j < n; j++) {
            if (Math.abs(c[j]) < NEGLIGIBLE * largest) {
                c[j] = 0;
            }
        }
        return c;
    }
}
