package dev.polyhe.core.inference;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Nonlinearities;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs the exact model's non-polynomial steps and records, per site, the range of every input: the domain
 * the polynomial that replaces the step must hold on. For attention sites it also records the row statistics
 * of (masked score)^p — sums (PowerSoftmax's denominator) and means (the length-agnostic denominator) — since
 * those, not the scores, are what the polynomial division sees. Reads values back as plaintext, so it runs on
 * plaintext engines only.
 */
public final class CalibrationRecorder implements Nonlinearities {
    private final ExactNonlinearities exact;
    private final int p;
    private final double epsilon;
    private final Map<String, SiteCalibration> sites = new LinkedHashMap<>();

    /**
     * @param p the power of the attention row statistics (PowerSoftmax's p)
     * @param epsilon PowerSoftmax's ε, for the per-row length-normalized denominators (ε + Σ x^p)/n
     */
    public CalibrationRecorder(ExactNonlinearities exact, int p, double epsilon) {
        this.exact = exact;
        this.p = p;
        this.epsilon = epsilon;
    }

    public Calibration result(String modelType, int samples) {
        return new Calibration(modelType, exact.attentionKernel().describe(), p, samples, sites);
    }

    private <M> void record(TensorOps<M> ops, M x, String site, String function) {
        double[] d = ops.toPlain(x).data();
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double v : d) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        merge(site, SiteCalibration.range(function, min, max, d.length));
    }

    /** Records the range of a model input's embeddings (the client's side of the model: what gets encrypted). */
    public void embeddings(Matrix embeddings) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double v : embeddings.data()) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        merge(
                Calibration.INPUT_SITE,
                SiteCalibration.range(Calibration.INPUT_SITE, min, max, embeddings.data().length));
    }

    private void merge(String site, SiteCalibration s) {
        sites.merge(site, s, SiteCalibration::merge);
    }

    @Override
    public <M> M invSqrt(TensorOps<M> ops, M x, String site) {
        record(ops, x, site, "inv-sqrt");
        return exact.invSqrt(ops, x, site);
    }

    @Override
    public <M> M gelu(TensorOps<M> ops, M x, String site) {
        record(ops, x, site, "gelu");
        return exact.gelu(ops, x, site);
    }

    @Override
    public <M> M tanh(TensorOps<M> ops, M x, String site) {
        record(ops, x, site, "tanh");
        return exact.tanh(ops, x, site);
    }

    @Override
    public <M> M attention(TensorOps<M> ops, M scores, Matrix mask, String site) {
        Matrix s = ops.toPlain(scores);
        int rows = s.rows();
        int cols = s.cols();
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sumMin = Double.POSITIVE_INFINITY;
        double sumMax = Double.NEGATIVE_INFINITY;
        double visibleMin = Double.POSITIVE_INFINITY;
        double visibleMax = Double.NEGATIVE_INFINITY;
        for (int r = 0; r < rows; r++) {
            double sum = 0;
            double visible = 0;
            for (int c = 0; c < cols; c++) {
                double m = mask == null ? 1 : mask.get(r, c);
                double v = s.get(r, c) * m;
                min = Math.min(min, v);
                max = Math.max(max, v);
                sum += Math.pow(v, p);
                visible += m;
            }
            sumMin = Math.min(sumMin, sum);
            sumMax = Math.max(sumMax, sum);
            if (visible > 0) {
                visibleMin = Math.min(visibleMin, (epsilon + sum) / visible);
                visibleMax = Math.max(visibleMax, (epsilon + sum) / visible);
            }
        }
        boolean anyVisible = visibleMin <= visibleMax;
        merge(
                site,
                new SiteCalibration(
                        "attention",
                        min,
                        max,
                        (long) rows * cols,
                        sumMin / cols,
                        sumMax / cols,
                        sumMin,
                        sumMax,
                        cols,
                        anyVisible ? visibleMin : null,
                        anyVisible ? visibleMax : null));
        return exact.attention(ops, scores, mask, site);
    }
}
