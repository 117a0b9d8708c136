package dev.polyhe.api;

import java.util.Arrays;

/**
 * A plaintext row-major matrix of doubles: the currency between client code, models and engines.
 * The array is shared, not copied; treat it as immutable once handed over.
 */
public record Matrix(int rows, int cols, double[] data) {
    public Matrix {
        if (rows < 0 || cols < 0) {
            throw new IllegalArgumentException("matrix shape must be non-negative, got [" + rows + ", " + cols + "]");
        }
        if (data == null || data.length != (long) rows * cols) {
            throw new IllegalArgumentException("matrix [" + rows + ", " + cols + "] needs " + ((long) rows * cols)
                    + " values, got " + (data == null ? "null" : data.length));
        }
    }

    public static Matrix zeros(int rows, int cols) {
        return new Matrix(rows, cols, new double[rows * cols]);
    }

    public static Matrix of(double[][] rowsData) {
        int r = rowsData.length;
        int c = r == 0 ? 0 : rowsData[0].length;
        double[] d = new double[r * c];
        for (int i = 0; i < r; i++) {
            if (rowsData[i].length != c) {
                throw new IllegalArgumentException(
                        "row " + i + " has " + rowsData[i].length + " values, expected " + c);
            }
            System.arraycopy(rowsData[i], 0, d, i * c, c);
        }
        return new Matrix(r, c, d);
    }

    public double get(int r, int c) {
        return data[r * cols + c];
    }

    public double[] row(int r) {
        return Arrays.copyOfRange(data, r * cols, (r + 1) * cols);
    }

    public double[][] toArray() {
        double[][] out = new double[rows][];
        for (int i = 0; i < rows; i++) {
            out[i] = row(i);
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Matrix m && m.rows == rows && m.cols == cols && Arrays.equals(m.data, data);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * rows + cols) + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "Matrix[" + rows + "x" + cols + "]";
    }
}
