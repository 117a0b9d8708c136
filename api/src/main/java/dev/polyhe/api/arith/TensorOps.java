package dev.polyhe.api.arith;

import dev.polyhe.api.Matrix;
import java.util.ArrayList;
import java.util.List;

/**
 * Matrix arithmetic over values of type {@code M} (a plaintext matrix or a packed, encrypted one). Model
 * and attention code is written against this interface once; the engine decides how values are held.
 * Element-wise operations ({@link Arith}) apply to every entry.
 *
 * <p>Row reductions keep the shape: {@link #rowSums} returns a matrix whose entries in row i all equal the
 * sum of row i, which is what rotate-and-add yields in packed slots and makes broadcasting free.
 */
public interface TensorOps<M> extends Arith<M> {
    /** A short engine name for reports ("plain", "ckks"). */
    String engineName();

    int rows(M m);

    int cols(M m);

    /** Brings a plaintext matrix into the engine (encodes and encrypts on encrypted engines: client side). */
    M fromPlain(Matrix m);

    /** Reads a value back as plaintext (decrypts on encrypted engines: client side). */
    Matrix toPlain(M m);

    /** {@code x · Wᵀ + b} for a plaintext weight W of shape [out, in] and bias b of length out (nullable). */
    M linear(M x, Matrix weight, double[] bias);

    /** {@code a · b}, both held by the engine: a [r, k], b [k, c]. */
    M matmul(M a, M b);

    /** {@code a · bᵀ}, both held by the engine: a [r, k], b [c, k] (e.g. Q·Kᵀ). */
    M matmulTransposed(M a, M b);

    /**
     * Multi-head attention scores: for q and k [T, heads·d], the heads' products Q_h·K_hᵀ (Q_h, K_h the h-th group
     * of d columns) stacked: row h·T + i of the result [heads·T, T] is row i of head h's scores. Row operations
     * (row sums, masks tiled per head) then act on every head at once, so an engine can keep all heads in few
     * ciphertexts.
     */
    default M headScores(M q, M k, int heads) {
        int d = headSize(cols(q), cols(k), heads);
        List<M> parts = new ArrayList<>(heads);
        for (int h = 0; h < heads; h++) {
            parts.add(matmulTransposed(columns(q, h * d, (h + 1) * d), columns(k, h * d, (h + 1) * d)));
        }
        return heads == 1 ? parts.get(0) : concatRows(parts);
    }

    /**
     * Multi-head attention contexts: {@code weights} stacked as {@link #headScores} leaves them [heads·T, T],
     * {@code values} [T, heads·d]; head h's weights times head h's value columns, the heads side by side
     * [T, heads·d].
     */
    default M headContexts(M weights, M values, int heads) {
        int d = headSize(cols(values), cols(values), heads);
        int tokens = rows(weights) / heads;
        if (rows(weights) != tokens * heads) {
            throw new IllegalArgumentException(
                    "headContexts: " + rows(weights) + " weight rows are not " + heads + " heads of equal size");
        }
        List<M> parts = new ArrayList<>(heads);
        for (int h = 0; h < heads; h++) {
            M w = heads == 1 ? weights : rowRange(weights, h * tokens, (h + 1) * tokens);
            parts.add(matmul(w, columns(values, h * d, (h + 1) * d)));
        }
        return heads == 1 ? parts.get(0) : concatColumns(parts);
    }

    private static int headSize(int qCols, int kCols, int heads) {
        if (heads < 1 || qCols != kCols || qCols % heads != 0) {
            throw new IllegalArgumentException("attention heads: " + qCols + " and " + kCols + " columns cannot be "
                    + "split into " + heads + " heads of equal size");
        }
        return qCols / heads;
    }

    /** Each entry replaced by the sum of its row. */
    M rowSums(M m);

    /** Each entry replaced by the mean of its row. */
    default M rowMeans(M m) {
        return mulConstant(rowSums(m), 1.0 / cols(m));
    }

    /** Element-wise product with a plaintext matrix of the same shape (masks, rotary cos/sin tables). */
    M mulPlain(M m, Matrix plain);

    /** Element-wise sum with a plaintext matrix of the same shape. */
    M addPlain(M m, Matrix plain);

    /** Multiplies every row element-wise by {@code v} (length cols), e.g. a LayerNorm weight. */
    M mulRow(M m, double[] v);

    /** Adds {@code v} (length cols) to every row, e.g. a LayerNorm bias. */
    M addRow(M m, double[] v);

    /** Columns [from, to) (e.g. one attention head). */
    M columns(M m, int from, int to);

    /** Rows [from, to) (e.g. the CLS token). */
    M rowRange(M m, int from, int to);

    /** Side-by-side concatenation of matrices with equal row counts. */
    M concatColumns(List<M> parts);

    /**
     * Vertical concatenation of matrices with equal column counts (the heads' score matrices in
     * {@link #headScores}). A default that refuses keeps engines written before it compiling; they then override
     * this or {@link #headScores} and {@link #headContexts} to run multi-head attention.
     */
    default M concatRows(List<M> parts) {
        throw new UnsupportedOperationException(
                engineName() + " engine cannot stack rows: override concatRows, or " + "headScores and headContexts");
    }

    /**
     * A permuted and weighted copy of the columns: column j of the result is column {@code source[j]} of m
     * multiplied element-wise by column j of {@code weights} [rows, source.length]; a negative source gives a
     * zero column. One plaintext product (e.g. the rotary embedding's rotate-half times its sine table).
     */
    default M permuteColumns(M m, int[] source, Matrix weights) {
        if (weights.rows() != rows(m) || weights.cols() != source.length) {
            throw new IllegalArgumentException("permuteColumns: weights are [" + weights.rows() + ", " + weights.cols()
                    + "], expected [" + rows(m) + ", " + source.length + "]");
        }
        double[] w = weights.data().clone();
        List<M> parts = new ArrayList<>(source.length);
        for (int j = 0; j < source.length; j++) {
            if (source[j] >= cols(m)) {
                throw new IllegalArgumentException(
                        "permuteColumns: column " + j + " reads column " + source[j] + " of a matrix with " + cols(m));
            }
            int s = Math.max(source[j], 0);
            if (source[j] < 0) {
                for (int r = 0; r < weights.rows(); r++) {
                    w[r * source.length + j] = 0;
                }
            }
            parts.add(columns(m, s, s + 1));
        }
        return mulPlain(concatColumns(parts), new Matrix(weights.rows(), source.length, w));
    }

    /**
     * Each entry replaced by the maximum absolute value of its row: the scaling of stable PowerSoftmax and
     * the max subtraction of softmax. Not a polynomial; encrypted engines throw {@link NotPolynomialException}.
     */
    M rowMaxAbs(M m);

    /**
     * Marks a region of work (an operator of a layer) for accounting. Engines that count time, levels and
     * primitives attribute everything done until {@link OperatorScope#close()} to {@code name}.
     */
    default OperatorScope operator(String name) {
        return OperatorScope.NONE;
    }
}
