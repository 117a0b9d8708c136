package dev.polyhe.models.layers;

import dev.polyhe.api.Matrix;

/** A lookup table [entries, hidden] (tokens, positions, token types), evaluated on the client. */
public record Embedding(String name, Matrix table) {
    /** Rows {@code ids} of the table; an id outside the table is an error naming it. */
    public Matrix lookup(long[] ids) {
        int h = table.cols();
        double[] out = new double[ids.length * h];
        for (int t = 0; t < ids.length; t++) {
            long id = ids[t];
            if (id < 0 || id >= table.rows()) {
                throw new IllegalArgumentException(
                        name + ": id " + id + " at position " + t + " is outside [0, " + table.rows() + ")");
            }
            System.arraycopy(table.data(), (int) id * h, out, t * h, h);
        }
        return new Matrix(ids.length, h, out);
    }

    /** Element-wise sum of equally shaped matrices (embedding sums on the client). */
    public static Matrix sum(Matrix... parts) {
        double[] out = parts[0].data().clone();
        for (int p = 1; p < parts.length; p++) {
            double[] d = parts[p].data();
            for (int i = 0; i < out.length; i++) {
                out[i] += d[i];
            }
        }
        return new Matrix(parts[0].rows(), parts[0].cols(), out);
    }
}
