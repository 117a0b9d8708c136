package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import java.util.Arrays;

/**
 * A weight matrix [out, in] encrypted by its owner ({@link EncryptedEngine#encryptWeights}) in the layout of
 * {@link SkewedWeights}: every weight once, for {@link EncryptedEngine#linear(EncryptedTensor, EncryptedWeights)}.
 *
 * <p>Beside the shape, the server learns two bounds, which it needs to keep values inside the bootstrap's domain:
 * the largest |weight| and the largest row sum of |weights| (an output's gain over its inputs).
 */
public final class EncryptedWeights {
    final int rows;
    final int cols;
    final int slots;
    final int columns;
    /** Ordered by output block, input block, then the block's ciphertext q ({@link SkewedWeights#vectors}). */
    final Ciphertext[] cts;

    final double maxAbs;
    final double maxRowSum;

    EncryptedWeights(int rows, int cols, int slots, int columns, Ciphertext[] cts, double maxAbs, double maxRowSum) {
        int expected = SkewedWeights.blocks(rows, columns)
                * SkewedWeights.blocks(cols, columns)
                * SkewedWeights.perBlock(slots, columns);
        if (cts.length != expected) {
            throw new IllegalArgumentException("encrypted weights [" + rows + ", " + cols + "] in blocks of " + columns
                    + " columns of " + slots + " rows need " + expected + " ciphertexts, got " + cts.length);
        }
        this.rows = rows;
        this.cols = cols;
        this.slots = slots;
        this.columns = columns;
        this.cts = cts;
        this.maxAbs = maxAbs;
        this.maxRowSum = maxRowSum;
    }

    /** Outputs: the rows of W. */
    public int rows() {
        return rows;
    }

    /** Inputs: the columns of W. */
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

    /** The ciphertexts' bytes in memory on a ring of degree {@code ringDegree}. */
    public long bytes(int ringDegree) {
        return EncryptedParameters.bytes(cts, ringDegree);
    }

    /** The ciphertexts of one B×B block (output block {@code m}, input block {@code k}). */
    Ciphertext[] block(int m, int k) {
        int per = SkewedWeights.perBlock(slots, columns);
        int first = (m * SkewedWeights.blocks(cols, columns) + k) * per;
        return Arrays.copyOfRange(cts, first, first + per);
    }

    @Override
    public String toString() {
        return "EncryptedWeights[" + rows + "x" + cols + ", " + columns + " columns of " + slots + " rows, "
                + cts.length + " ciphertexts, level " + level() + "]";
    }
}
