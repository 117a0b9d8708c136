package dev.polyhe.core.inference;

import dev.polyhe.api.approx.Domain;

/**
 * Turns a calibrated range into the domain an approximation must hold on, widened by a relative margin: inputs
 * of unseen data fall somewhat outside the calibration range, and a polynomial is unguarded outside its domain.
 */
public final class SiteDomains {
    private final double margin;

    public SiteDomains(double margin) {
        this.margin = margin;
    }

    public double margin() {
        return margin;
    }

    /** For functions on the real line (GELU, tanh): [min, max] widened by margin × width on both sides. */
    public Domain real(double min, double max) {
        double width = Math.max(max - min, Math.max(Math.abs(min), Math.abs(max)) * 1e-3 + 1e-6);
        return new Domain(min - margin * width, max + margin * width);
    }

    /** For functions on (0, ∞) (1/√x, 1/x): [min / (1 + margin), max · (1 + margin)], staying positive. */
    public Domain positive(double min, double max) {
        if (!(min > 0)) {
            throw new IllegalArgumentException(
                    "calibrated range [" + min + ", " + max + "] of a positive-only function reaches 0 or below");
        }
        double lo = min / (1 + margin);
        double hi = Math.max(max * (1 + margin), lo * (1 + 1e-6));
        return new Domain(lo, hi);
    }

    /**
     * For sums and means of x^p (PowerSoftmax's denominators): the margin is on the scores x, so the top widens by
     * (1 + margin)^p. A score 7 % above the calibration's is 31 % above in x^4, past a 10 % margin on the power, and
     * above its domain Goldschmidt's guess grows like T_m and the division diverges; below it the guess only
     * converges slower, so the bottom keeps {@link #positive}'s margin.
     */
    public Domain powers(double min, double max, int p) {
        Domain d = positive(min, max);
        return new Domain(d.lo(), Math.max(d.hi(), max * Math.pow(1 + margin, p)));
    }
}
