package dev.polyhe.core.engine;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.ScalarArith;
import dev.polyhe.api.arith.TensorOps;
import java.util.List;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * The reference engine: {@link TensorOps} on float64 arrays. It tracks the multiplicative depth of every
 * value with the CKKS rules of {@link dev.polyhe.api.arith.Arith} and counts multiplications, so depth
 * figures of approximations and attention mechanisms are measured, not typed in. Runs the exact model
 * (non-polynomial functions allowed) and the polynomial model alike. Not thread-safe: it counts.
 */
public final class PlainEngine implements TensorOps<PlainTensor> {
    private long multiplications;
    private long nonPolynomialCalls;
    private int maxDepth;

    /** Ciphertext-ciphertext, ciphertext-plaintext and real-constant products so far (each counted once per call). */
    public long multiplications() {
        return multiplications;
    }

    /** Calls of {@link #exact} and {@link #rowMaxAbs}: zero for a program that can run encrypted. */
    public long nonPolynomialCalls() {
        return nonPolynomialCalls;
    }

    /** The deepest value produced so far. */
    public int maxDepth() {
        return maxDepth;
    }

    private PlainTensor make(int rows, int cols, double[] data, int depth) {
        maxDepth = Math.max(maxDepth, depth);
        return new PlainTensor(rows, cols, data, depth);
    }

    private static void requireSameShape(PlainTensor a, PlainTensor b, String op) {
        if (a.rows != b.rows || a.cols != b.cols) {
            throw new IllegalArgumentException(
                    op + ": shapes differ, [" + a.rows + ", " + a.cols + "] vs [" + b.rows + ", " + b.cols + "]");
        }
    }

    private PlainTensor zip(PlainTensor a, PlainTensor b, String op, int depth, DoubleBinaryOperator f) {
        requireSameShape(a, b, op);
        double[] out = new double[a.data.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = f.applyAsDouble(a.data[i], b.data[i]);
        }
        return make(a.rows, a.cols, out, depth);
    }

    private PlainTensor map(PlainTensor a, int depth, DoubleUnaryOperator f) {
        double[] out = new double[a.data.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = f.applyAsDouble(a.data[i]);
        }
        return make(a.rows, a.cols, out, depth);
    }

    @Override
    public String engineName() {
        return "plain";
    }

    @Override
    public PlainTensor add(PlainTensor a, PlainTensor b) {
        return zip(a, b, "add", Math.max(a.depth, b.depth), Double::sum);
    }

    @Override
    public PlainTensor sub(PlainTensor a, PlainTensor b) {
        return zip(a, b, "sub", Math.max(a.depth, b.depth), (x, y) -> x - y);
    }

    @Override
    public PlainTensor negate(PlainTensor a) {
        return map(a, a.depth, x -> -x);
    }

    @Override
    public PlainTensor mul(PlainTensor a, PlainTensor b) {
        multiplications++;
        return zip(a, b, "mul", Math.max(a.depth, b.depth) + 1, (x, y) -> x * y);
    }

    @Override
    public PlainTensor addConstant(PlainTensor a, double c) {
        return map(a, a.depth, x -> x + c);
    }

    @Override
    public PlainTensor mulConstant(PlainTensor a, double c) {
        int depth = ScalarArith.depthAfterConstant(a.depth, c);
        if (depth > a.depth) {
            multiplications++;
        }
        return map(a, depth, x -> x * c);
    }

    @Override
    public PlainTensor constantLike(PlainTensor like, double c) {
        double[] out = new double[like.data.length];
        java.util.Arrays.fill(out, c);
        return make(like.rows, like.cols, out, 0);
    }

    @Override
    public PlainTensor exact(PlainTensor a, String function, DoubleUnaryOperator f) {
        nonPolynomialCalls++;
        return map(a, a.depth, f);
    }

    @Override
    public int depth(PlainTensor a) {
        return a.depth;
    }

    @Override
    public int rows(PlainTensor m) {
        return m.rows;
    }

    @Override
    public int cols(PlainTensor m) {
        return m.cols;
    }

    @Override
    public PlainTensor fromPlain(Matrix m) {
        return make(m.rows(), m.cols(), m.data().clone(), 0);
    }

    @Override
    public Matrix toPlain(PlainTensor m) {
        return m.toMatrix();
    }

    @Override
    public PlainTensor linear(PlainTensor x, Matrix weight, double[] bias) {
        int in = x.cols;
        int out = weight.rows();
        ShapeCheck.linear(in, weight, bias);
        multiplications++;
        double[] w = weight.data();
        double[] y = new double[x.rows * out];
        for (int r = 0; r < x.rows; r++) {
            int xo = r * in;
            for (int o = 0; o < out; o++) {
                int wo = o * in;
                double s = bias == null ? 0 : bias[o];
                for (int k = 0; k < in; k++) {
                    s += x.data[xo + k] * w[wo + k];
                }
                y[r * out + o] = s;
            }
        }
        return make(x.rows, out, y, x.depth + 1);
    }

    @Override
    public PlainTensor matmul(PlainTensor a, PlainTensor b) {
        if (a.cols != b.rows) {
            throw new IllegalArgumentException(
                    "matmul: [" + a.rows + ", " + a.cols + "] x [" + b.rows + ", " + b.cols + "] do not chain");
        }
        multiplications++;
        double[] y = new double[a.rows * b.cols];
        for (int r = 0; r < a.rows; r++) {
            for (int k = 0; k < a.cols; k++) {
                double av = a.data[r * a.cols + k];
                int bo = k * b.cols;
                int yo = r * b.cols;
                for (int c = 0; c < b.cols; c++) {
                    y[yo + c] += av * b.data[bo + c];
                }
            }
        }
        return make(a.rows, b.cols, y, Math.max(a.depth, b.depth) + 1);
    }

    @Override
    public PlainTensor matmulTransposed(PlainTensor a, PlainTensor b) {
        if (a.cols != b.cols) {
            throw new IllegalArgumentException("matmulTransposed: [" + a.rows + ", " + a.cols + "] x [" + b.rows + ", "
                    + b.cols + "]ᵀ do not chain");
        }
        multiplications++;
        double[] y = new double[a.rows * b.rows];
        for (int r = 0; r < a.rows; r++) {
            for (int c = 0; c < b.rows; c++) {
                double s = 0;
                for (int k = 0; k < a.cols; k++) {
                    s += a.data[r * a.cols + k] * b.data[c * b.cols + k];
                }
                y[r * b.rows + c] = s;
            }
        }
        return make(a.rows, b.rows, y, Math.max(a.depth, b.depth) + 1);
    }

    @Override
    public PlainTensor rowSums(PlainTensor m) {
        double[] out = new double[m.data.length];
        for (int r = 0; r < m.rows; r++) {
            double s = 0;
            for (int c = 0; c < m.cols; c++) {
                s += m.data[r * m.cols + c];
            }
            java.util.Arrays.fill(out, r * m.cols, (r + 1) * m.cols, s);
        }
        return make(m.rows, m.cols, out, m.depth);
    }

    private static void requireShape(PlainTensor m, Matrix p, String op) {
        ShapeCheck.sameShape(op, m.rows, m.cols, p);
    }

    @Override
    public PlainTensor mulPlain(PlainTensor m, Matrix plain) {
        requireShape(m, plain, "mulPlain");
        multiplications++;
        double[] p = plain.data();
        double[] out = new double[m.data.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = m.data[i] * p[i];
        }
        return make(m.rows, m.cols, out, m.depth + 1);
    }

    @Override
    public PlainTensor addPlain(PlainTensor m, Matrix plain) {
        requireShape(m, plain, "addPlain");
        double[] p = plain.data();
        double[] out = new double[m.data.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = m.data[i] + p[i];
        }
        return make(m.rows, m.cols, out, m.depth);
    }

    private static void requireRow(PlainTensor m, double[] v, String op) {
        ShapeCheck.rowVector(op, m.cols, v);
    }

    @Override
    public PlainTensor mulRow(PlainTensor m, double[] v) {
        requireRow(m, v, "mulRow");
        multiplications++;
        double[] out = new double[m.data.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = m.data[i] * v[i % m.cols];
        }
        return make(m.rows, m.cols, out, m.depth + 1);
    }

    @Override
    public PlainTensor addRow(PlainTensor m, double[] v) {
        requireRow(m, v, "addRow");
        double[] out = new double[m.data.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = m.data[i] + v[i % m.cols];
        }
        return make(m.rows, m.cols, out, m.depth);
    }

    @Override
    public PlainTensor columns(PlainTensor m, int from, int to) {
        ShapeCheck.range("columns", from, to, m.cols);
        int w = to - from;
        double[] out = new double[m.rows * w];
        for (int r = 0; r < m.rows; r++) {
            System.arraycopy(m.data, r * m.cols + from, out, r * w, w);
        }
        return make(m.rows, w, out, m.depth);
    }

    @Override
    public PlainTensor rowRange(PlainTensor m, int from, int to) {
        ShapeCheck.range("rows", from, to, m.rows);
        return make(to - from, m.cols, java.util.Arrays.copyOfRange(m.data, from * m.cols, to * m.cols), m.depth);
    }

    @Override
    public PlainTensor concatColumns(List<PlainTensor> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("concatColumns: nothing to concatenate");
        }
        int rows = parts.get(0).rows;
        int cols = 0;
        int depth = 0;
        for (PlainTensor p : parts) {
            if (p.rows != rows) {
                throw new IllegalArgumentException("concatColumns: row counts differ, " + rows + " vs " + p.rows);
            }
            cols += p.cols;
            depth = Math.max(depth, p.depth);
        }
        double[] out = new double[rows * cols];
        int offset = 0;
        for (PlainTensor p : parts) {
            for (int r = 0; r < rows; r++) {
                System.arraycopy(p.data, r * p.cols, out, r * cols + offset, p.cols);
            }
            offset += p.cols;
        }
        return make(rows, cols, out, depth);
    }

    @Override
    public PlainTensor concatRows(List<PlainTensor> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("concatRows: nothing to concatenate");
        }
        int cols = parts.get(0).cols;
        int rows = 0;
        int depth = 0;
        for (PlainTensor p : parts) {
            if (p.cols != cols) {
                throw new IllegalArgumentException("concatRows: column counts differ, " + cols + " vs " + p.cols);
            }
            rows += p.rows;
            depth = Math.max(depth, p.depth);
        }
        double[] out = new double[rows * cols];
        int offset = 0;
        for (PlainTensor p : parts) {
            System.arraycopy(p.data, 0, out, offset, p.data.length);
            offset += p.data.length;
        }
        return make(rows, cols, out, depth);
    }

    @Override
    public PlainTensor rowMaxAbs(PlainTensor m) {
        nonPolynomialCalls++;
        double[] out = new double[m.data.length];
        for (int r = 0; r < m.rows; r++) {
            double mx = 0;
            for (int c = 0; c < m.cols; c++) {
                mx = Math.max(mx, Math.abs(m.data[r * m.cols + c]));
            }
            java.util.Arrays.fill(out, r * m.cols, (r + 1) * m.cols, mx);
        }
        return make(m.rows, m.cols, out, m.depth);
    }
}
