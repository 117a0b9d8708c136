package dev.polyhe.api.approx;

import dev.polyhe.api.arith.ScalarArith;
import dev.polyhe.api.arith.Traced;

/** Absolute and relative error of an approximation over an evenly spaced grid of its domain. */
public record ApproximationError(double max, double mean, double maxRelative, double worstX) {
    public static ApproximationError measure(Approximation a, int points) {
        ScalarArith arith = new ScalarArith();
        double max = 0;
        double sum = 0;
        double maxRel = 0;
        double worst = a.domain().lo();
        for (double x : a.domain().grid(points)) {
            double p = a.evaluate(arith, Traced.of(x)).value();
            double f = a.exact(x);
            double err = Math.abs(p - f);
            if (Double.isNaN(err)) {
                err = Double.POSITIVE_INFINITY;
            }
            sum += err;
            if (err > max) {
                max = err;
                worst = x;
            }
            if (f != 0) {
                maxRel = Math.max(maxRel, err / Math.abs(f));
            }
        }
        return new ApproximationError(max, sum / points, maxRel, worst);
    }
}
