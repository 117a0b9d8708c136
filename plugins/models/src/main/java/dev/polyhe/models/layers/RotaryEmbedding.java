package dev.polyhe.models.layers;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import java.util.ArrayList;
import java.util.List;

/**
 * Rotary position embedding (RoPE) in the GPT-NeoX "rotate half" convention, on the first {@code rotaryDims}
 * dimensions of every head (partial rotary, {@code rotary_pct}); the other dimensions pass unchanged.
 *
 * <p>x' = x ⊙ C + rotate_half(x) ⊙ S, with C = cos(angles) on the rotary dimensions and 1 elsewhere,
 * S = sin(angles) on the rotary dimensions and 0 elsewhere. rotate_half([x1, x2]) = [-x2, x1] is a fixed
 * signed permutation, built from column slices and a negation, so it costs no multiplicative level; the
 * cos/sin tables are public plaintexts (positions are not secret), so the rotation is one plaintext product.
 */
public final class RotaryEmbedding {
    private final int heads;
    private final int headSize;
    private final int rotaryDims;
    private final double[] inverseFrequencies;

    public RotaryEmbedding(int heads, int headSize, int rotaryDims, double base) {
        if (rotaryDims < 0 || rotaryDims > headSize || rotaryDims % 2 != 0) {
            throw new IllegalArgumentException("rotary dimensions " + rotaryDims + " must be even and at most the head size "
                    + headSize);
        }
        this.heads = heads;
        this.headSize = headSize;
        this.rotaryDims = rotaryDims;
        this.inverseFrequencies = new double[rotaryDims / 2];
        for (int i = 0; i < rotaryDims / 2; i++) {
            inverseFrequencies[i] = 1.0 / Math.pow(base, (2.0 * i) / rotaryDims);
        }
    }

    public int rotaryDims() {
        return rotaryDims;
    }

    /** The angle of rotary pair i at position t. */
    double angle(int t, int i) {
        return t * inverseFrequencies[i];
    }

    /** [tokens, heads·headSize] tables C and S, tiled across heads. */
    Matrix[] tables(int tokens) {
        int width = heads * headSize;
        double[] c = new double[tokens * width];
        double[] s = new double[tokens * width];
        int half = rotaryDims / 2;
        for (int t = 0; t < tokens; t++) {
            for (int h = 0; h < heads; h++) {
                for (int j = 0; j < headSize; j++) {
                    int idx = t * width + h * headSize + j;
                    if (j < rotaryDims) {
                        double a = angle(t, j % half);
                        c[idx] = Math.cos(a);
                        s[idx] = Math.sin(a);
                    } else {
                        c[idx] = 1;
                    }
                }
            }
        }
        return new Matrix[] {new Matrix(tokens, width, c), new Matrix(tokens, width, s)};
    }

    /** Applies the rotation to x [tokens, heads·headSize] (all heads of q or k at once). */
    public <M> M apply(TensorOps<M> ops, M x) {
        if (rotaryDims == 0) {
            return x;
        }
        Matrix[] cs = tables(ops.rows(x));
        return ops.add(ops.mulPlain(x, cs[0]), ops.mulPlain(rotateHalf(ops, x), cs[1]));
    }

    /**
     * Per head: [-x2, x1, pass] for x = [x1, x2, pass]. The pass-through columns are multiplied by a zero
     * sine afterwards; they are kept so that the shape matches without building zeros.
     */
    <M> M rotateHalf(TensorOps<M> ops, M x) {
        int half = rotaryDims / 2;
        List<M> parts = new ArrayList<>();
        for (int h = 0; h < heads; h++) {
            int o = h * headSize;
            parts.add(ops.negate(ops.columns(x, o + half, o + rotaryDims)));
            parts.add(ops.columns(x, o, o + half));
            if (rotaryDims < headSize) {
                parts.add(ops.columns(x, o + rotaryDims, o + headSize));
            }
        }
        return ops.concatColumns(parts);
    }
}
