package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.Matrix;

/**
 * The slot layout of a weight matrix encrypted for {@link CiphertextLinear}: every weight once (no copy per token),
 * skewed so that a cyclic row shift of it lines weights up with a segment move of the skewed activations.
 *
 * <p>Weight W [out, in] (as {@link dev.polyhe.api.arith.TensorOps#linear} takes it: y = x·Wᵀ) is cut into B×B blocks
 * W_mk (output block m, input block k, B the columns per ciphertext). Block W_mk is held in M = max(1, B/P)
 * ciphertexts Z_q of B segments of P rows: segment j, row t of Z_q holds W[mB + j, kB + (j + t + qP) mod B]. So a
 * cyclic row shift of the pair (Z_q, Z_{q+1}) by σ holds in segment j, row t the weight of input column
 * (j + t + σ') mod B, σ' = qP + σ: the weight that multiplies column j + σ' of the activations' skew (row t moved
 * left by t segments) in the same slot. Where B &lt; P the rows repeat the block every B rows and one ciphertext
 * holds it (P/B copies of each weight, small models only).
 */
final class SkewedWeights {
    private SkewedWeights() {}

    /** M: the ciphertexts that hold one B×B block. */
    static int perBlock(int slots, int columns) {
        return Math.max(1, columns / slots);
    }

    /** The ciphertexts' slot vectors of {@code weight}, ordered by output block, input block, then q. */
    static double[][] vectors(Matrix weight, int slots, int columns) {
        int outBlocks = blocks(weight.rows(), columns);
        int inBlocks = blocks(weight.cols(), columns);
        int m = perBlock(slots, columns);
        double[][] out = new double[outBlocks * inBlocks * m][];
        for (int ob = 0; ob < outBlocks; ob++) {
            for (int ib = 0; ib < inBlocks; ib++) {
                for (int q = 0; q < m; q++) {
                    out[(ob * inBlocks + ib) * m + q] = block(weight, ob, ib, q, slots, columns);
                }
            }
        }
        return out;
    }

    private static double[] block(Matrix weight, int ob, int ib, int q, int slots, int columns) {
        double[] v = new double[columns * slots];
        for (int j = 0; j < columns; j++) {
            int o = ob * columns + j;
            if (o >= weight.rows()) {
                continue;
            }
            for (int t = 0; t < slots; t++) {
                int i = ib * columns + Math.floorMod(j + t + q * slots, columns);
                if (i < weight.cols()) {
                    v[j * slots + t] = weight.get(o, i);
                }
            }
        }
        return v;
    }

    static int blocks(int cols, int columns) {
        return (cols + columns - 1) / columns;
    }
}
