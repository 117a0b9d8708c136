package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import java.util.Arrays;

/**
 * A matrix held by the {@link EncryptedEngine}: its logical shape, its {@link Layout} and its ciphertexts.
 *
 * <p>{@code clean} records whether the padding (slots at rows ≥ T in {@link Layout#COLUMNS}, entries at columns
 * ≥ T in {@link Layout#DIAGONALS}) is known to be zero; reductions over padding mask it first when it is not.
 *
 * <p>{@code perCiphertext}: the columns ({@link Layout#BLOCKS}, B) or diagonals ({@link Layout#DIAGONALS}, D) held
 * side by side in one ciphertext; 1 for {@link Layout#COLUMNS}.
 */
public final class EncryptedTensor {
    final Layout layout;
    final int rows;
    final int cols;
    final Ciphertext[] cts;
    final boolean clean;
    final int perCiphertext;
    /** How the heads sit, for {@link Layout#HEAD_DIAGONALS}; null otherwise. */
    final HeadPacking heads;
    /**
     * The range of the values, as the engine tracks it (set once by the operation that made the tensor); null when
     * unknown, e.g. for a tensor read from a file until a calibrated range is announced.
     */
    ValueRange range;
    /**
     * What the padding rows hold, where an operation knows it exactly (a row sum's masked padding, then constants
     * added or multiplied); null when unknown. {@link EncryptedEngine#bound} moves a known value into the domain a
     * polynomial is about to be evaluated on, with a plaintext addition: no level.
     */
    PaddingRows padding;

    /**
     * Rows {@code tokens ..} of every segment of the packing's slots hold {@code value} (up to CKKS noise).
     *
     * @param tokens the real rows of each segment
     * @param value what each padding row holds
     */
    record PaddingRows(int tokens, double value) {
        PaddingRows map(java.util.function.DoubleUnaryOperator f) {
            return new PaddingRows(tokens, f.applyAsDouble(value));
        }
    }

    EncryptedTensor(Layout layout, int rows, int cols, Ciphertext[] cts, boolean clean) {
        this(layout, rows, cols, cts, clean, 1);
    }

    EncryptedTensor(Layout layout, int rows, int cols, Ciphertext[] cts, boolean clean, int perCiphertext) {
        this(layout, rows, cols, cts, clean, perCiphertext, null);
    }

    /** Stacked head scores [heads·T, T]. */
    EncryptedTensor(int rows, int cols, Ciphertext[] cts, boolean clean, HeadPacking heads) {
        this(Layout.HEAD_DIAGONALS, rows, cols, cts, clean, 1, heads);
    }

    private EncryptedTensor(
            Layout layout, int rows, int cols, Ciphertext[] cts, boolean clean, int perCiphertext, HeadPacking heads) {
        this.heads = heads;
        this.layout = layout;
        this.rows = rows;
        this.cols = cols;
        this.cts = cts;
        this.clean = clean;
        this.perCiphertext = perCiphertext;
    }

    /** Columns (blocks) or diagonals (score blocks) side by side in one ciphertext; 1 for one column each. */
    public int perCiphertext() {
        return perCiphertext;
    }

    /** The same layout and shape over other ciphertexts. */
    EncryptedTensor with(Ciphertext[] other, boolean otherClean) {
        return new EncryptedTensor(layout, rows, cols, other, otherClean, perCiphertext, heads);
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

    /** The scale of the first ciphertext (operands are aligned to one scale before they meet; for reports). */
    public double scale() {
        return cts.length == 0 ? 0 : cts[0].scale();
    }

    @Override
    public String toString() {
        String packing =
                heads != null ? " (" + heads + ")" : perCiphertext > 1 ? " (" + perCiphertext + " per ciphertext)" : "";
        return "EncryptedTensor[" + rows + "x" + cols + ", " + layout + packing + ", " + cts.length
                + " ciphertexts, level " + level() + "]";
    }
}
