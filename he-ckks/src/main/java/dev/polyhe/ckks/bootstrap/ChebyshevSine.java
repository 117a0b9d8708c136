package dev.polyhe.ckks.bootstrap;

/**
 * The Chebyshev interpolant of g(u) = cos(2π·(B·u − 1/4) / 2^r) on u in [−1, 1]. After r double-angle steps
 * (cos 2θ = 2cos²θ − 1) it becomes cos(2π·y − π/2) = sin(2π·y) for y = B·u in [−B, B], which is 2π·(y mod 1)
 * up to a relative error (2π·(y mod 1))²/6 when y is near an integer. Dividing the angle by 2^r lowers the
 * frequency and with it the degree the interpolant needs; the degree is the smallest whose dropped Chebyshev
 * coefficients stay below {@link #TAIL}.
 */
final class ChebyshevSine {
    /**
     * Coefficients below this are dropped: 2^-46 is above the rounding floor of the interpolation (about
     * 2^-50 at 256 nodes) and, even after 4^r amplification by the double angles, below the 2^-35 that a
     * 20-bit message at q_0/Δ = 2^15 can take.
     */
    static final double TAIL = 0x1p-46;

    private static final int MAX_DEGREE = 255;

    private final double bound;
    private final int doubleAngles;
    private final double[] coefficients;

    ChebyshevSine(double bound, int doubleAngles) {
        this.bound = bound;
        this.doubleAngles = doubleAngles;
        double[] all = interpolate(bound, doubleAngles, MAX_DEGREE);
        int d = all.length - 1;
        while (d > 1 && Math.abs(all[d]) < TAIL) {
            d--;
        }
        if (d == MAX_DEGREE) {
            throw new IllegalArgumentException("the sine on [-" + bound + ", " + bound + "] with " + doubleAngles
                    + " double angles needs a degree above " + MAX_DEGREE + "; use more double angles");
        }
        coefficients = java.util.Arrays.copyOf(all, d + 1);
    }

    /** The number of double angles (of 0..6) that minimises the depth, then the multiplications, for this bound. */
    static ChebyshevSine cheapest(double bound) {
        ChebyshevSine best = null;
        for (int r = 0; r <= 6; r++) {
            ChebyshevSine c;
            try {
                c = new ChebyshevSine(bound, r);
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (best == null
                    || c.depth() < best.depth()
                    || c.depth() == best.depth() && c.degree() + r < best.degree() + best.doubleAngles()) {
                best = c;
            }
        }
        return best;
    }

    double bound() {
        return bound;
    }

    int doubleAngles() {
        return doubleAngles;
    }

    int degree() {
        return coefficients.length - 1;
    }

    double coefficient(int k) {
        return coefficients[k];
    }

    /** The series Σ c_k·T_k before the double angles. */
    ChebyshevSeries series() {
        return new ChebyshevSeries(coefficients);
    }

    /** Levels: the series' (about ceil(log2(d+1))), plus one per double angle. */
    int depth() {
        return series().depth() + doubleAngles;
    }

    /** The whole approximation, sin(2π·y) for y = B·u, in plain arithmetic (for tests and planning). */
    double evaluate(double u) {
        double t0 = 1;
        double t1 = u;
        double sum = coefficients[0] + (coefficients.length > 1 ? coefficients[1] * u : 0);
        for (int k = 2; k < coefficients.length; k++) {
            double t2 = 2 * u * t1 - t0;
            sum += coefficients[k] * t2;
            t0 = t1;
            t1 = t2;
        }
        for (int i = 0; i < doubleAngles; i++) {
            sum = 2 * sum * sum - 1;
        }
        return sum;
    }

    static int ceilLog2(int x) {
        return x <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(x - 1);
    }

    /** Chebyshev coefficients from the values at the d+1 Chebyshev nodes (a discrete cosine transform). */
    private static double[] interpolate(double bound, int r, int d) {
        int m = d + 1;
        double[] f = new double[m];
        for (int j = 0; j < m; j++) {
            double u = Math.cos(Math.PI * (j + 0.5) / m);
            f[j] = Math.cos(2 * Math.PI * (bound * u - 0.25) / (1 << r));
        }
        double[] c = new double[m];
        for (int k = 0; k < m; k++) {
            double s = 0;
            for (int j = 0; j < m; j++) {
                s += f[j] * Math.cos(Math.PI * k * (j + 0.5) / m);
            }
            c[k] = s * (k == 0 ? 1.0 : 2.0) / m;
        }
        return c;
    }
}
