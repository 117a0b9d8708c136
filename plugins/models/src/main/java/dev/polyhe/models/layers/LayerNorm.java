package dev.polyhe.models.layers;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.OperatorScope;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Nonlinearities;
import dev.polyhe.models.checkpoint.Weights;

/**
 * LayerNorm over the last axis with the biased variance: (x - mean) · (var + eps)^(-1/2) · weight + bias.
 * The only non-polynomial step, the inverse square root, goes through {@link Nonlinearities} so the host
 * decides whether it is exact or a Goldschmidt approximation on a calibrated domain.
 *
 * <p>Arranged for multiplicative depth: with c = x - mean and H the width,
 * (var + eps)^(-1/2) = √H · (Σc² + H·eps)^(-1/2), so the row sum needs no 1/H product and √H joins the weight;
 * c · weight is computed while the inverse square root runs. Depth: mean 1, square 1, 1/√x, one product —
 * two levels less than the textbook order. The site's input is therefore Σc² + H·eps = H·(var + eps).
 */
public record LayerNorm(double[] weight, double[] bias, double eps) {
    public static LayerNorm load(Weights w, String prefix, int hidden, double eps) {
        return new LayerNorm(w.vector(prefix + ".weight", hidden), w.vector(prefix + ".bias", hidden), eps);
    }

    @SuppressWarnings("try") // the scope only brackets the work for the engine's accounting
    public <M> M apply(TensorOps<M> ops, M x, Nonlinearities nl, String site) {
        try (OperatorScope s = ops.operator(site)) {
            int h = ops.cols(x);
            M centered = ops.sub(x, ops.rowMeans(x));
            M sumOfSquares = ops.rowSums(ops.square(centered));
            M inv = nl.invSqrt(ops, ops.addConstant(sumOfSquares, h * eps), site);
            double sqrtH = Math.sqrt(h);
            double[] scaledWeight = new double[weight.length];
            for (int i = 0; i < weight.length; i++) {
                scaledWeight[i] = weight[i] * sqrtH;
            }
            M out = ops.addRow(ops.mul(ops.mulRow(centered, scaledWeight), inv), bias);
            return ops.bound(out, -outputBound(), outputBound());
        }
    }

    /**
     * |output| ≤ √H·max|weight| + max|bias| whatever the input: a row of (x − mean)/√(var + eps) has squares summing
     * to at most H. Announced to the engine ({@code TensorOps#bound}), which cannot see it in centered × 1/√x (their
     * extremes never meet); 1 % more for the approximation of 1/√x.
     */
    double outputBound() {
        double w = 0;
        double b = 0;
        for (int i = 0; i < weight.length; i++) {
            w = Math.max(w, Math.abs(weight[i]));
            b = Math.max(b, Math.abs(bias[i]));
        }
        return 1.01 * Math.sqrt(weight.length) * w + b;
    }

    /** The same normalization on the client, in plaintext float64 (RoBERTa's embedding LayerNorm). */
    public Matrix applyPlain(Matrix x) {
        int h = x.cols();
        double[] out = new double[x.data().length];
        for (int r = 0; r < x.rows(); r++) {
            double mean = 0;
            for (int c = 0; c < h; c++) {
                mean += x.data()[r * h + c];
            }
            mean /= h;
            double var = 0;
            for (int c = 0; c < h; c++) {
                double d = x.data()[r * h + c] - mean;
                var += d * d;
            }
            var /= h;
            double inv = 1 / Math.sqrt(var + eps);
            for (int c = 0; c < h; c++) {
                out[r * h + c] = (x.data()[r * h + c] - mean) * inv * weight[c] + bias[c];
            }
        }
        return new Matrix(x.rows(), h, out);
    }
}
