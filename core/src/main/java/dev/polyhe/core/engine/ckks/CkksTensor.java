package dev.polyhe.core.engine.ckks;

import dev.polyhe.api.he.Ciphertext;
import java.util.Arrays;

/**
 * A matrix held by the {@link CkksEngine}: its logical shape, its {@link Layout} and its ciphertexts.
 *
 * <p>{@code clean} records whether the padding (slots at rows ≥ T in {@link Layout#COLUMNS}, entries at columns
 * ≥ T in {@link Layout#DIAGONALS}) is known to be zero; reductions over padding mask it first when it is not.
 */
public final class CkksTensor {
    final Layout layout;
    final int rows;
    final int cols;
    final Ciphertext[] cts;
    final boolean clean;

    CkksTensor(Layout layout, int rows, int cols, Ciphertext[] cts, boolean clean) {
        this.layout = layout;
        this.rows = rows;
        this.cols = cols;
        this.cts = cts;
        this.clean = clean;
    }

    public Layout layout() {
        return layout;
    }

    public int rows() {
        return rows;
    }

    public int cols() {
        return cols;
    }

    /** The ciphertexts, in layout order (a copy of the array). */
    public Ciphertext[] ciphertexts() {
        return cts.clone();
    }

    /** The lowest level among the ciphertexts. */
    public int level() {
        return Arrays.stream(cts).mapToInt(Ciphertext::level).min().orElse(0);
    }

    @Override
    public String toString() {
        return "CkksTensor[" + rows + "x" + cols + ", " + layout + ", " + cts.length + " ciphertexts, level "
                + level() + "]";
    }
}
