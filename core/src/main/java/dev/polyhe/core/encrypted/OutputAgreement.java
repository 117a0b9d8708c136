package dev.polyhe.core.encrypted;

import dev.polyhe.api.Matrix;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How closely a decrypted output follows a reference: mean squared error, max absolute error, and, per row, whether
 * it predicts the same class or token (argmax). The rows that do not ({@link #flips}) carry the reference's gap
 * between its own choice and the one decrypted, so that a near-tie (a gap below the error's typical size) can be told
 * from an error; {@link #referenceMargins} holds every row's top-2 gap in the reference and {@link #rowMaxAbs} every
 * row's largest error, so that errors gathered at some positions (the first tokens, say) show.
 */
public record OutputAgreement(
        double mse, double maxAbs, int rows, List<Flip> flips, double[] referenceMargins, double[] rowMaxAbs) {
    /**
     * A row whose argmax differs: the reference's choice and the decrypted one, the reference's logit gap between the
     * two, and how far the decrypted output moved each of them.
     */
    public record Flip(
            int row,
            int referenceTop,
            int actualTop,
            double referenceGap,
            double errorAtReferenceTop,
            double errorAtActualTop) {
        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "position %d: %d → %d, reference gap %.2e, errors %+.2e / %+.2e",
                    row,
                    referenceTop,
                    actualTop,
                    referenceGap,
                    errorAtReferenceTop,
                    errorAtActualTop);
        }
    }

    public OutputAgreement {
        flips = List.copyOf(flips);
        referenceMargins = referenceMargins.clone();
        rowMaxAbs = rowMaxAbs.clone();
        if (rowMaxAbs.length != referenceMargins.length) {
            throw new IllegalArgumentException(
                    rowMaxAbs.length + " row errors for " + referenceMargins.length + " rows");
        }
    }

    public static OutputAgreement between(Matrix actual, Matrix reference) {
        if (actual.rows() != reference.rows() || actual.cols() != reference.cols()) {
            throw new IllegalArgumentException("outputs differ in shape: [" + actual.rows() + ", " + actual.cols()
                    + "] vs [" + reference.rows() + ", " + reference.cols() + "]");
        }
        double se = 0;
        double max = 0;
        List<Flip> flips = new ArrayList<>();
        double[] rowMax = new double[actual.rows()];
        for (int r = 0; r < actual.rows(); r++) {
            int a = 0;
            int b = 0;
            for (int c = 0; c < actual.cols(); c++) {
                double d = actual.get(r, c) - reference.get(r, c);
                se += d * d;
                rowMax[r] = Math.max(rowMax[r], Math.abs(d));
                a = actual.get(r, c) > actual.get(r, a) ? c : a;
                b = reference.get(r, c) > reference.get(r, b) ? c : b;
            }
            max = Math.max(max, rowMax[r]);
            if (a != b) {
                flips.add(new Flip(
                        r,
                        b,
                        a,
                        reference.get(r, b) - reference.get(r, a),
                        actual.get(r, b) - reference.get(r, b),
                        actual.get(r, a) - reference.get(r, a)));
            }
        }
        return new OutputAgreement(
                se / Math.max(1, actual.data().length), max, actual.rows(), flips, topMargins(reference), rowMax);
    }

    /** Per row, the gap between the largest and the second largest value (0 for a single column). */
    public static double[] topMargins(Matrix m) {
        double[] margins = new double[m.rows()];
        for (int r = 0; r < m.rows(); r++) {
            double first = Double.NEGATIVE_INFINITY;
            double second = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < m.cols(); c++) {
                double v = m.get(r, c);
                if (v > first) {
                    second = first;
                    first = v;
                } else if (v > second) {
                    second = v;
                }
            }
            margins[r] = m.cols() < 2 ? 0 : first - second;
        }
        return margins;
    }

    @Override
    public double[] referenceMargins() {
        return referenceMargins.clone();
    }

    @Override
    public double[] rowMaxAbs() {
        return rowMaxAbs.clone();
    }

    /** The rows with the largest errors, largest first, at most {@code n}. */
    public int[] worstRows(int n) {
        return java.util.stream.IntStream.range(0, rowMaxAbs.length)
                .boxed()
                .sorted((x, y) -> Double.compare(rowMaxAbs[y], rowMaxAbs[x]))
                .limit(n)
                .mapToInt(Integer::intValue)
                .toArray();
    }

    /** Whether every row predicts what the reference does. */
    public boolean samePrediction() {
        return flips.isEmpty();
    }

    /** Rows whose reference top-2 margin is below {@code gap}: those an error of that size may flip. */
    public int rowsWithMarginBelow(double gap) {
        return (int) Arrays.stream(referenceMargins).filter(m -> m < gap).count();
    }

    /** Flips where the reference preferred its token by more than {@code gap}: not near-ties at that error. */
    public int flipsWithGapAbove(double gap) {
        return (int) flips.stream().filter(f -> f.referenceGap() > gap).count();
    }

    /**
     * How many rows agree, the reference's top-2 margins against the typical error (√mse), the rows with the largest
     * errors, then one line per flip (the first {@code maxFlips}), so that a near-tie reads as one.
     */
    public String describePredictions(int maxFlips) {
        double rms = Math.sqrt(mse);
        StringBuilder s = new StringBuilder(
                String.format(Locale.ROOT, "same prediction at %d of %d positions", rows - flips.size(), rows));
        if (referenceMargins.length > 0) {
            double[] sorted = referenceMargins.clone();
            Arrays.sort(sorted);
            s.append(String.format(
                    Locale.ROOT,
                    "; reference top-2 margins: min %.2e, median %.2e; %d below 4×rms " + "error (%.2e)",
                    sorted[0],
                    sorted[sorted.length / 2],
                    rowsWithMarginBelow(4 * rms),
                    4 * rms));
        }
        if (!flips.isEmpty()) {
            s.append(String.format(
                    Locale.ROOT, "; flips whose reference gap exceeds 4×rms error: %d", flipsWithGapAbove(4 * rms)));
        }
        if (rows > 1) {
            s.append("; largest errors at positions");
            for (int r : worstRows(5)) {
                s.append(String.format(Locale.ROOT, " %d (%.2e)", r, rowMaxAbs[r]));
            }
        }
        flips.stream().limit(maxFlips).forEach(f -> s.append("\n  ").append(f.describe()));
        if (flips.size() > maxFlips) {
            s.append("\n  … and ").append(flips.size() - maxFlips).append(" more");
        }
        return s.toString();
    }

    /** The worse of two agreements (for a batch): rows and flips add up, rows renumbered after this one's. */
    public OutputAgreement combine(OutputAgreement o) {
        List<Flip> all = new ArrayList<>(flips);
        for (Flip f : o.flips) {
            all.add(new Flip(
                    rows + f.row(),
                    f.referenceTop(),
                    f.actualTop(),
                    f.referenceGap(),
                    f.errorAtReferenceTop(),
                    f.errorAtActualTop()));
        }
        return new OutputAgreement(
                Math.max(mse, o.mse),
                Math.max(maxAbs, o.maxAbs),
                rows + o.rows,
                all,
                concat(referenceMargins, o.referenceMargins),
                concat(rowMaxAbs, o.rowMaxAbs));
    }

    private static double[] concat(double[] a, double[] b) {
        double[] ab = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, ab, a.length, b.length);
        return ab;
    }
}
