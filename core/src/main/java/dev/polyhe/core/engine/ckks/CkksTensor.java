package dev.polyhe.core.engine.ckks;

import dev.polyhe.api.he.Ciphertext;
import java.util.Arrays;

/**
 * A matrix held by the {@link CkksEngine}: its logical shape, its {@link Layout} and its ciphertexts.
 *
 * <p>{@code clean} records whether the padding (slots at rows ≥ T in {@link Layout#COLUMNS}, entries at columns
 * ≥ T in {@link Layout#DIAGONALS}) is known to be zero; reductions over padding mask it first when it is not.
 *
 * <p>{@code diagonalsPerCiphertext} (D, diagonal layout only, else 1): ciphertext i holds diagonals iD .. iD+D−1
 * side by side in D·P slots, so a [T, T] block takes P/D ciphertexts instead of P.
 */
public final class CkksTensor {
    final Layout layout;
    final int rows;
    final int cols;
    final Ciphertext[] cts;
    final boolean clean;
    final int diagonalsPerCiphertext;

    CkksTensor(Layout layout, int rows, int cols, Ciphertext[] cts, boolean clean) {
        this(layout, rows, cols, cts, clean, 1);
    }

    CkksTensor(Layout layout, int rows, int cols, Ciphertext[] cts, boolean clean, int diagonalsPerCiphertext) {
        this.layout = layout;
        this.rows = rows;
        this.cols = cols;
        this.cts = cts;
        this.clean = clean;
        this.diagonalsPerCiphertext = diagonalsPerCiphertext;
    }

    /** Diagonals side by side in one ciphertext (1 for column-packed matrices). */
    public int diagonalsPerCiphertext() {
        return diagonalsPerCiphertext;
    }

    /** The same layout and shape over other ciphertexts. */
    CkksTensor with(Ciphertext[] other, boolean otherClean) {
        return new CkksTensor(layout, rows, cols, other, otherClean, diagonalsPerCiphertext);
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
        String packing = diagonalsPerCiphertext > 1 ? " (" + diagonalsPerCiphertext + " per ciphertext)" : "";
        return "CkksTensor[" + rows + "x" + cols + ", " + layout + packing + ", " + cts.length + " ciphertexts, level "
                + level() + "]";
    }
}
