package dev.polyhe.core.engine;

import dev.polyhe.api.Matrix;

/** The operand checks every engine makes before {@code TensorOps} work, with the same messages everywhere. */
public final class ShapeCheck {
    private ShapeCheck() {}

    /** A weight [out, in] and bias [out] (nullable) for an input of {@code in} columns. */
    public static void linear(int in, Matrix weight, double[] bias) {
        if (weight.cols() != in) {
            throw new IllegalArgumentException("linear: weight is [" + weight.rows() + ", " + weight.cols()
                    + "] but the input has " + in + " columns (expected weight [out, " + in + "])");
        }
        if (bias != null && bias.length != weight.rows()) {
            throw new IllegalArgumentException(
                    "linear: bias has " + bias.length + " values, expected " + weight.rows());
        }
    }

    /** A row vector for a matrix of {@code cols} columns. */
    public static void rowVector(String op, int cols, double[] v) {
        if (v.length != cols) {
            throw new IllegalArgumentException(op + ": vector has " + v.length + " values, expected " + cols);
        }
    }

    /** A plaintext of the matrix's own shape. */
    public static void sameShape(String op, int rows, int cols, Matrix plain) {
        if (plain.rows() != rows || plain.cols() != cols) {
            throw new IllegalArgumentException(op + ": plaintext is [" + plain.rows() + ", " + plain.cols()
                    + "], expected [" + rows + ", " + cols + "]");
        }
    }

    /** A half-open range [from, to) within [0, size), of columns or rows. */
    public static void range(String what, int from, int to, int size) {
        if (from < 0 || to > size || from >= to) {
            throw new IllegalArgumentException(what + " [" + from + ", " + to + ") outside [0, " + size + ")");
        }
    }
}
