package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import java.util.Arrays;

/**
 * A row vector (a bias, a LayerNorm gain) encrypted by its owner ({@link EncryptedEngine#encryptRow}) in the column
 * blocks of the activations: entry j in every row of column j's segment, one ciphertext per block. The server learns
 * its length and the largest |entry|.
 */
public final class EncryptedRow {
    final int cols;
    final Ciphertext[] cts;
    final double maxAbs;

    EncryptedRow(int cols, Ciphertext[] cts, double maxAbs) {
        this.cols = cols;
        this.cts = cts;
        this.maxAbs = maxAbs;
    }

    public int cols() {
        return cols;
    }

    /** The ciphertexts, one per column block (a copy of the array). */
    public Ciphertext[] ciphertexts() {
        return cts.clone();
    }

    /** The largest |entry|, as the owner declared it. */
    public double maxAbs() {
        return maxAbs;
    }

    public int level() {
        return Arrays.stream(cts).mapToInt(Ciphertext::level).min().orElse(0);
    }

    @Override
    public String toString() {
        return "EncryptedRow[" + cols + ", " + cts.length + " ciphertexts, level " + level() + "]";
    }
}
