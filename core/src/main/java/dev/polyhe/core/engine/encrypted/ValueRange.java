package dev.polyhe.core.engine.encrypted;

import java.util.Arrays;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * What the engine knows of the values a tensor holds without seeing them: the values as functions of one source
 * variable (a calibrated range, or an interval an operation provably yields), sampled at fixed points of that source.
 *
 * <p>Element-wise operations on ranges of one source apply pointwise to the samples. That follows a polynomial
 * program (Goldschmidt's iterations, a Chebyshev series) exactly at every sample, where interval arithmetic would
 * forget that e and x·y are functions of the same x and blow up within a few iterations. Operations that mix entries
 * (sums, matrix products) or values of different sources fall back to interval arithmetic and start a new source.
 *
 * <p>The engine uses ranges to scale values into the range where bootstrapping is accurate ({@link EncryptedEngine});
 * they
 * are bounds on the entries of the matrix, from calibration where it supplies them, so they are estimates of
 * magnitude rather than guarantees. A range is <em>tight</em> when it was announced ({@link #interval}) or follows
 * from one pointwise: interval arithmetic across sources, sums and matrix products can overestimate by orders of
 * magnitude (a LayerNorm's centered values times its inverse square root, whose extremes never meet), and the
 * engine scales values down, which costs them precision, only on tight ranges.
 */
final class ValueRange {
    /**
     * Where a range came from, as an error trace reports it: a domain the model announced (calibrated, widened by the
     * margin), a plaintext's own values, or interval arithmetic; the first two and what follows from them pointwise
     * are tight.
     */
    enum Origin {
        CALIBRATED("calibrated"),
        DATA("data"),
        INTERVAL("interval arithmetic");

        final String label;

        Origin(String label) {
            this.label = label;
        }
    }

    /** Samples of a new source: Chebyshev points of the interval plus its ends (the extremes of most programs). */
    static final int SAMPLES = 65;

    /** Identity only: ranges with the same source are co-indexed. Null for a constant. */
    private final Object source;

    private final double[] samples;
    private final Origin origin;

    private ValueRange(Object source, double[] samples, Origin origin) {
        this.source = source;
        this.samples = samples;
        this.origin = origin;
    }

    /** Announced, or worked out from announced ranges pointwise (see the class comment). */
    boolean tight() {
        return origin != Origin.INTERVAL;
    }

    Origin origin() {
        return origin;
    }

    /** Values anywhere in [lo, hi], a domain the model announced (a new source, tight). */
    static ValueRange interval(double lo, double hi) {
        return interval(lo, hi, Origin.CALIBRATED);
    }

    /** Values anywhere in [lo, hi], as tight as and from where {@code like} is (a new source). */
    static ValueRange interval(double lo, double hi, ValueRange like) {
        return interval(lo, hi, like.origin);
    }

    private static ValueRange interval(double lo, double hi, Origin origin) {
        if (!(lo <= hi) || Double.isInfinite(lo) || Double.isInfinite(hi)) {
            return null;
        }
        if (lo == hi) {
            return new ValueRange(new Object(), new double[] {lo}, origin);
        }
        double[] s = new double[SAMPLES];
        double mid = (lo + hi) / 2;
        double half = (hi - lo) / 2;
        for (int i = 0; i < SAMPLES; i++) {
            s[i] = mid - half * Math.cos(Math.PI * i / (SAMPLES - 1));
        }
        s[0] = lo;
        s[SAMPLES - 1] = hi;
        if (lo < 0 && hi > 0) {
            s[SAMPLES / 2] = 0; // x² and the like reach their minimum there
        }
        return new ValueRange(new Object(), s, origin);
    }

    /** The range of the entries of a plaintext matrix (padding zeros included: they ride in the same slots). */
    static ValueRange of(double[] values, boolean withZero) {
        double lo = withZero ? 0 : Double.POSITIVE_INFINITY;
        double hi = withZero ? 0 : Double.NEGATIVE_INFINITY;
        for (double v : values) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
        }
        return values.length == 0 && !withZero ? null : interval(lo, hi, Origin.DATA);
    }

    static ValueRange constant(double c) {
        return new ValueRange(null, new double[] {c}, Origin.DATA);
    }

    /** The interval [lo, hi] worked out by interval arithmetic: a new source, not tight. */
    static ValueRange loose(double lo, double hi) {
        return interval(lo, hi, Origin.INTERVAL);
    }

    double lo() {
        return Arrays.stream(samples).min().orElse(0);
    }

    double hi() {
        return Arrays.stream(samples).max().orElse(0);
    }

    double maxAbs() {
        double m = 0;
        for (double v : samples) {
            m = Math.max(m, Math.abs(v));
        }
        return m;
    }

    /** f of every value (same source). */
    ValueRange map(DoubleUnaryOperator f) {
        double[] out = new double[samples.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = f.applyAsDouble(samples[i]);
        }
        return finite(out) ? new ValueRange(source, out, origin) : null;
    }

    ValueRange plus(ValueRange o) {
        return combine(this, o, Double::sum, lo() + o.lo(), hi() + o.hi());
    }

    ValueRange minus(ValueRange o) {
        return combine(this, o, (a, b) -> a - b, lo() - o.hi(), hi() - o.lo());
    }

    ValueRange times(ValueRange o) {
        double[] p = products(lo(), hi(), o.lo(), o.hi());
        return combine(this, o, (a, b) -> a * b, p[0], p[1]);
    }

    /** A sum of n values of this range: [n·lo, n·hi] (a new source, loose). */
    ValueRange sumOf(int n) {
        return loose(Math.min(0, n * lo()), Math.max(0, n * hi()));
    }

    /** The hull of both: values of either (tight if both are). */
    ValueRange union(ValueRange o) {
        return this == o ? this : interval(Math.min(lo(), o.lo()), Math.max(hi(), o.hi()), weaker(origin, o.origin));
    }

    /** The interval product's ends: [min, max] of the four corner products. */
    static double[] products(double alo, double ahi, double blo, double bhi) {
        double p1 = alo * blo;
        double p2 = alo * bhi;
        double p3 = ahi * blo;
        double p4 = ahi * bhi;
        return new double[] {Math.min(Math.min(p1, p2), Math.min(p3, p4)), Math.max(Math.max(p1, p2), Math.max(p3, p4))
        };
    }

    /**
     * Pointwise when both are of one source (or either is a constant), else the interval [lo, hi] worked out by the
     * caller as a new source.
     */
    private static ValueRange combine(ValueRange a, ValueRange b, DoubleBinaryOperator f, double lo, double hi) {
        if (a.source == null || b.source == null || a.source == b.source && a.samples.length == b.samples.length) {
            int n = Math.max(a.samples.length, b.samples.length);
            double[] out = new double[n];
            for (int i = 0; i < n; i++) {
                out[i] = f.applyAsDouble(
                        a.samples[a.samples.length == 1 ? 0 : i], b.samples[b.samples.length == 1 ? 0 : i]);
            }
            if (!finite(out)) {
                return null;
            }
            return new ValueRange(
                    a.source != null ? a.source : b.source,
                    out,
                    a.source == null ? b.origin : b.source == null ? a.origin : weaker(a.origin, b.origin));
        }
        return loose(lo, hi);
    }

    /** The origin of a range from two: interval arithmetic if either is, else calibrated if either is. */
    private static Origin weaker(Origin a, Origin b) {
        return a == Origin.INTERVAL || b == Origin.INTERVAL
                ? Origin.INTERVAL
                : a == Origin.CALIBRATED || b == Origin.CALIBRATED ? Origin.CALIBRATED : Origin.DATA;
    }

    private static boolean finite(double[] v) {
        for (double x : v) {
            if (!Double.isFinite(x)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "[%.3g, %.3g]", lo(), hi());
    }
}
