package dev.polyhe.core.bench;

/**
 * Exact softmax and PowerSoftmax on double arrays, independent of any plugin: the yardsticks the attention
 * benchmark measures mechanisms against.
 */
public final class ReferenceAttention {
    private ReferenceAttention() {}

    /** Row-wise softmax of a [rows, cols] row-major array. */
    public static double[] softmax(double[] scores, int rows, int cols) {
        double[] out = new double[scores.length];
        for (int r = 0; r < rows; r++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < cols; c++) {
                max = Math.max(max, scores[r * cols + c]);
            }
            double sum = 0;
            for (int c = 0; c < cols; c++) {
                out[r * cols + c] = Math.exp(scores[r * cols + c] - max);
                sum += out[r * cols + c];
            }
            for (int c = 0; c < cols; c++) {
                out[r * cols + c] /= sum;
            }
        }
        return out;
    }

    /** Row-wise PowerSoftmax x^p / (ε + Σ x^p). */
    public static double[] powerSoftmax(double[] scores, int rows, int cols, int p, double epsilon) {
        double[] out = new double[scores.length];
        for (int r = 0; r < rows; r++) {
            double sum = 0;
            for (int c = 0; c < cols; c++) {
                out[r * cols + c] = Math.pow(scores[r * cols + c], p);
                sum += out[r * cols + c];
            }
            for (int c = 0; c < cols; c++) {
                out[r * cols + c] /= epsilon + sum;
            }
        }
        return out;
    }
}
