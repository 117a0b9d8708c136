package dev.polyhe.core.engine;

import dev.polyhe.api.Matrix;

/**
 * A float64 matrix held by the {@link PlainEngine}, with the multiplicative depth that produced it.
 * Immutable by convention: engine operations never write into an operand.
 */
public final class PlainTensor {
    final int rows;
    final int cols;
    final double[] data;
    final int depth;

    PlainTensor(int rows, int cols, double[] data, int depth) {
        this.rows = rows;
        this.cols = cols;
        this.data = data;
        this.depth = depth;
    }

    public int rows() {
        return rows;
    }

    public int cols() {
        return cols;
    }

    public int depth() {
        return depth;
    }

    public double get(int r, int c) {
        return data[r * cols + c];
    }

    /** A copy as a plain matrix. */
    public Matrix toMatrix() {
        return new Matrix(rows, cols, data.clone());
    }

    @Override
    public String toString() {
        return "PlainTensor[" + rows + "x" + cols + ", depth " + depth + "]";
    }
}
