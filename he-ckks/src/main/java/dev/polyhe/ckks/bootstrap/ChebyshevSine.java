package dev.polyhe.ckks.bootstrap;

/**
 * The Chebyshev interpolant of cos(2π·(y − 1/4) / 2^r) for y in [−B, B]. After r double-angle steps
 * (cos 2θ = 2cos²θ − 1) it becomes cos(2π·y − π/2) = sin(2π·y), which is 2π·(y mod 1) up to a relative error
 * (2π·(y mod 1))²/6 when y is near an integer. Dividing the angle by 2^r lowers the frequency and with it the
 * degree the interpolant needs; the degree is the smallest whose dropped Chebyshev coefficients stay below
 * {@link #TAIL}.
 *
 * <p>Two forms. The direct one interpolates in u = y/B. The even one shifts first, v = (y − 1/4)/(B + 1/4) (a
 * constant added, no level), where the cosine is even in v: only T_2k(v) = T_k(T_2(v)) appear, so it is a series
 * of half the degree in w = T_2(v) = 2v² − 1, one product away (Han and Ki's cosine form, with the shift folded
 * into the input). At N = 2^16 (B = 12.5) both take eight levels, but the even form 14 ciphertext products
 * instead of 16 for the same error.
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
    private final boolean even;
    /** In u (direct) or in w = T_2(v) (even). */
    private final double[] coefficients;

    ChebyshevSine(double bound, int doubleAngles, boolean even) {
        this.bound = bound;
        this.doubleAngles = doubleAngles;
        this.even = even;
        double b = inputBound();
        double shift = even ? 0 : 0.25;
        double[] all = interpolate(u -> Math.cos(2 * Math.PI * (b * u - shift) / (1 << doubleAngles)), MAX_DEGREE);
        int d = all.length - 1;
        while (d > 1 && Math.abs(all[d]) < TAIL) {
            d--;
        }
        if (d == MAX_DEGREE) {
            throw new IllegalArgumentException("the sine on [-" + bound + ", " + bound + "] with " + doubleAngles
                    + " double angles needs a degree above " + MAX_DEGREE + "; use more double angles");
        }
        if (even) {
            // the odd coefficients of an even function are interpolation rounding (about 2^-50): T_2k(v) = T_k(w)
            double[] half = new double[d / 2 + 1];
            for (int k = 0; k < half.length; k++) {
                half[k] = all[2 * k];
            }
            coefficients = half;
        } else {
            coefficients = java.util.Arrays.copyOf(all, d + 1);
        }
    }

    /**
     * The form and number of double angles (of 0..6) that minimise the depth, then the ciphertext products, for
     * this bound.
     */
    static ChebyshevSine cheapest(double bound) {
        ChebyshevSine best = null;
        for (int r = 0; r <= 6; r++) {
            for (boolean even : new boolean[] {false, true}) {
                ChebyshevSine c;
                try {
                    c = new ChebyshevSine(bound, r, even);
                } catch (IllegalArgumentException e) {
                    continue;
                }
                if (best == null
                        || c.depth() < best.depth()
                        || c.depth() == best.depth() && c.products() < best.products()) {
                    best = c;
                }
            }
        }
        return best;
    }

    double bound() {
        return bound;
    }

    /** The bound the input is divided by: u = y / inputBound() lies in [−1, 1] (B, or B + 1/4 for the even form). */
    double inputBound() {
        return even ? bound + 0.25 : bound;
    }

    /** The constant added to the input first: v = u + shift() (the even form's −1/4, in units of the input). */
    double shift() {
        return even ? -0.25 / inputBound() : 0;
    }

    boolean even() {
        return even;
    }

    int doubleAngles() {
        return doubleAngles;
    }

    /** The degree of the series evaluated (in w for the even form: half the interpolant's). */
    int degree() {
        return coefficients.length - 1;
    }

    double coefficient(int k) {
        return coefficients[k];
    }

    /** The series Σ c_k·T_k (in u, or in w for the even form) before the double angles. */
    ChebyshevSeries series() {
        return new ChebyshevSeries(coefficients);
    }

    /** Levels: the even form's T_2, the series' (about ceil(log2(d+1))), plus one per double angle. */
    int depth() {
        return (even ? 1 : 0) + series().depth() + doubleAngles;
    }

    /** Ciphertext products: the even form's T_2, the series', one per double angle. */
    int products() {
        return (even ? 1 : 0) + series().products() + doubleAngles;
    }

    /** The whole approximation at u = y / inputBound(), sin(2π·y), in plain arithmetic (for tests and planning). */
    double evaluate(double u) {
        double x = u;
        if (even) {
            double v = u + shift();
            x = 2 * v * v - 1;
        }
        double t0 = 1;
        double t1 = x;
        double sum = coefficients[0] + (coefficients.length > 1 ? coefficients[1] * x : 0);
        for (int k = 2; k < coefficients.length; k++) {
            double t2 = 2 * x * t1 - t0;
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

    /** Chebyshev coefficients of f on [−1, 1] from its values at the d+1 Chebyshev nodes (a cosine transform). */
    private static double[] interpolate(java.util.function.DoubleUnaryOperator f, int d) {
        int m = d + 1;
        double[] values = new double[m];
        for (int j = 0; j < m; j++) {
            values[j] = f.applyAsDouble(Math.cos(Math.PI * (j + 0.5) / m));
        }
        double[] c = new double[m];
        for (int k = 0; k < m; k++) {
            double s = 0;
            for (int j = 0; j < m; j++) {
                s += values[j] * Math.cos(Math.PI * k * (j + 0.5) / m);
            }
            c[k] = s * (k == 0 ? 1.0 : 2.0) / m;
        }
        return c;
    }
}
