package dev.polyhe.api.approx;

/** A closed interval [lo, hi] on which an approximation is promised to hold. */
public record Domain(double lo, double hi) {
    public Domain {
        if (!(Double.isFinite(lo) && Double.isFinite(hi)) || !(lo < hi)) {
            throw new IllegalArgumentException("domain [" + lo + ", " + hi + "] is not a finite interval with lo < hi");
        }
    }

    public double width() {
        return hi - lo;
    }

    public boolean contains(double x) {
        return x >= lo && x <= hi;
    }

    /** {@code n} evenly spaced points from lo to hi inclusive (n ≥ 2). */
    public double[] grid(int n) {
        double[] g = new double[n];
        for (int i = 0; i < n; i++) {
            g[i] = lo + (hi - lo) * i / (n - 1);
        }
        g[n - 1] = hi;
        return g;
    }

    @Override
    public String toString() {
        return "[" + lo + ", " + hi + "]";
    }
}
