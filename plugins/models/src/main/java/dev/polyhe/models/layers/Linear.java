package dev.polyhe.models.layers;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.models.checkpoint.Weights;

/** A dense layer y = x Wᵀ + b with W [out, in] in plaintext (the server holds the weights unencrypted). */
public record Linear(Matrix weight, double[] bias) {
    public static Linear load(Weights w, String prefix, int out, int in, boolean withBias) {
        return new Linear(w.matrix(prefix + ".weight", out, in), withBias ? w.vector(prefix + ".bias", out) : null);
    }

    public <M> M apply(TensorOps<M> ops, M x) {
        return ops.linear(x, weight, bias);
    }

    public int out() {
        return weight.rows();
    }

    /** x Wᵀ + b on the client, in plaintext (patch embedding). */
    public Matrix applyPlain(Matrix x) {
        int in = weight.cols();
        int out = weight.rows();
        double[] w = weight.data();
        double[] y = new double[x.rows() * out];
        for (int r = 0; r < x.rows(); r++) {
            for (int o = 0; o < out; o++) {
                double s = bias == null ? 0 : bias[o];
                for (int k = 0; k < in; k++) {
                    s += x.data()[r * in + k] * w[o * in + k];
                }
                y[r * out + o] = s;
            }
        }
        return new Matrix(x.rows(), out, y);
    }
}
