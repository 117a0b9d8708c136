package dev.polyhe.core.inference;

import dev.polyhe.api.Matrix;

/** Max and mean absolute difference between two results, over every entry. */
public record ErrorStats(double max, double mean, long count) {
    public static final ErrorStats NONE = new ErrorStats(0, 0, 0);

    public static ErrorStats between(Matrix actual, Matrix expected) {
        if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
            throw new IllegalArgumentException("cannot compare [" + actual.rows() + ", " + actual.cols() + "] with ["
                    + expected.rows() + ", " + expected.cols() + "]");
        }
        double max = 0;
        double sum = 0;
        double[] a = actual.data();
        double[] e = expected.data();
        for (int i = 0; i < a.length; i++) {
            double d = Math.abs(a[i] - e[i]);
            if (Double.isNaN(d)) {
                d = Double.POSITIVE_INFINITY;
            }
            max = Math.max(max, d);
            sum += d;
        }
        return new ErrorStats(max, a.length == 0 ? 0 : sum / a.length, a.length);
    }

    /** The statistics over both sets of entries. */
    public ErrorStats combine(ErrorStats o) {
        long n = count + o.count;
        return new ErrorStats(Math.max(max, o.max), n == 0 ? 0 : (mean * count + o.mean * o.count) / n, n);
    }
}
