package dev.polyhe.core.inference;

/**
 * The exact scalar functions of the reference model: GELU with the error function, as Hugging Face's
 * {@code gelu} (not the tanh approximation), and 1/√x. Core cannot borrow the approximations plugin's copy.
 */
public final class ExactFunctions {
    private static final double SQRT_HALF = Math.sqrt(0.5);
    private static final double TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

    private ExactFunctions() {}

    /** GELU(x) = x·Φ(x) = x·(1 + erf(x/√2))/2. */
    public static double gelu(double x) {
        return 0.5 * x * (1 + erf(x * SQRT_HALF));
    }

    public static double invSqrt(double x) {
        return 1 / Math.sqrt(x);
    }

    /**
     * erf to about 1e-15: the series erf(x) = 2/√π·e^{-x²}·Σ 2^n x^{2n+1}/(1·3·…·(2n+1)) has only positive
     * terms (no cancellation); beyond |x| = 6, erf is ±1 in double precision.
     */
    public static double erf(double x) {
        double ax = Math.abs(x);
        if (ax >= 6) {
            return Math.signum(x);
        }
        double x2 = ax * ax;
        double term = ax;
        double sum = ax;
        for (int n = 1; n < 400; n++) {
            term *= 2 * x2 / (2 * n + 1);
            sum += term;
            if (term < 1e-17 * sum) {
                break;
            }
        }
        return Math.copySign(TWO_OVER_SQRT_PI * Math.exp(-x2) * sum, x);
    }
}
