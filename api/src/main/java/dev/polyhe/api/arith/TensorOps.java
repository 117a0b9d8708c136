package dev.polyhe.api.arith;

import dev.polyhe.api.Matrix;
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
