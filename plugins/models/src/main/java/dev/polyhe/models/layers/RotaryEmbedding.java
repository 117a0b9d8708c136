package dev.polyhe.models.layers;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;

/**
 * Rotary position embedding (RoPE) in the GPT-NeoX "rotate half" convention, on the first {@code rotaryDims}
 * dimensions of every head (partial rotary, {@code rotary_pct}); the other dimensions pass unchanged.
 *
 * <p>x' = x ⊙ C + rotate_half(x) ⊙ S, with C = cos(angles) on the rotary dimensions and 1 elsewhere,
 * S = sin(angles) on the rotary dimensions and 0 elsewhere. rotate_half([x1, x2]) = [-x2, x1] is a fixed
 * signed permutation of columns; its sign goes into the sine table, so rotate_half(x) ⊙ S is one
 * {@link TensorOps#permuteColumns} (one plaintext product: the cos/sin tables are public, positions are not
 * secret).
 */
public final class RotaryEmbedding {
    private final int heads;
    private final int headSize;
    private final int rotaryDims;
    private final double[] inverseFrequencies;

    public RotaryEmbedding(int heads, int headSize, int rotaryDims, double base) {
        if (rotaryDims < 0 || rotaryDims > headSize || rotaryDims % 2 != 0) {
            throw new IllegalArgumentException(
                    "rotary dimensions " + rotaryDims + " must be even and at most the head size " + headSize);
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
        return ops.add(ops.mulPlain(x, cs[0]), ops.permuteColumns(x, rotateHalfSources(), signedSine(cs[1])));
    }

    /**
     * rotate_half per head as column sources: [x2, x1, none] for x = [x1, x2, pass]. The sign of the first half
     * (-x2) goes into the sine table ({@link #signedSine}); the pass-through columns have a zero sine anyway.
     */
    int[] rotateHalfSources() {
        int half = rotaryDims / 2;
        int[] source = new int[heads * headSize];
        for (int h = 0; h < heads; h++) {
            int o = h * headSize;
            for (int j = 0; j < headSize; j++) {
                source[o + j] = j < half ? o + j + half : j < rotaryDims ? o + j - half : -1;
            }
        }
        return source;
    }

    /** The sine table with the first half of every head's rotary dimensions negated. */
    Matrix signedSine(Matrix sine) {
        double[] s = sine.data().clone();
        int width = heads * headSize;
        for (int t = 0; t < sine.rows(); t++) {
            for (int h = 0; h < heads; h++) {
                for (int j = 0; j < rotaryDims / 2; j++) {
                    s[t * width + h * headSize + j] = -s[t * width + h * headSize + j];
                }
            }
        }
        return new Matrix(sine.rows(), sine.cols(), s);
    }
}
