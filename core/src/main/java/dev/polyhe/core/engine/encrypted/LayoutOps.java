package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.core.engine.ShapeCheck;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Tensors moved between layouts and cut or joined ({@link Layout}): column blocks unpacked to columns, row and head
 * slices, concatenations, and the masks that keep padding rows and columns out of sums. Plaintext products and
 * rotations are the engine's and {@link Rotations}'.
 */
final class LayoutOps {
    private final EncryptedEngine engine;
    private final LeveledOps ops;
    private final Rotations rotations;
    private final Refresher refresher;
    private final LevelsAndScales levels;
    private final int slots;

    /** @param engine whose mulPlain masks padding */
    LayoutOps(
            EncryptedEngine engine,
            LeveledOps ops,
            Rotations rotations,
            Refresher refresher,
            LevelsAndScales levels,
            int slots) {
        this.engine = engine;
        this.ops = ops;
        this.rotations = rotations;
        this.refresher = refresher;
        this.levels = levels;
        this.slots = slots;
    }

    static void requireColumns(EncryptedTensor m, String op) {
        if (m.layout != Layout.COLUMNS) {
            throw new UnsupportedOperationException(op + " needs a column-packed matrix, got " + m.layout);
        }
    }
    /** Zeroes the entries of a diagonal-layout matrix that lie in padding columns (u ≥ T). */
    EncryptedTensor maskPadding(EncryptedTensor a) {
        Matrix ones = new Matrix(a.rows, a.cols, filled(a.rows * a.cols, 1.0));
        return engine.mulPlain(a, ones);
    }

    private static double[] filled(int n, double v) {
        double[] d = new double[n];
        Arrays.fill(d, v);
        return d;
    }
    /**
     * Row sums with their padding rows (T .. P−1 of every segment of P slots) set to zero: whatever follows a row sum
     * (a division, an inverse square root) is then told where the padding stands ({@link EncryptedTensor#padding}), and
     * {@link EncryptedEngine#bound} moves it into the domain with a plaintext addition. One level.
     */
    Ciphertext withPaddingRowsZeroed(Ciphertext c, int tokens, OperatorKind op) {
        Ciphertext x = refresher.withLevels(c, 1, op);
        double[] rows = new double[x.slots()];
        for (int seg = 0; seg < x.slots() / slots; seg++) {
            Arrays.fill(rows, seg * slots, seg * slots + tokens, 1.0);
        }
        return levels.rescale(ops.plainProductRaw(x, ops.encode(rows, rows.length, x.level(), op), op), op);
    }
    /**
     * Whether row sums of unclean padding are zeroed: where T < P and c may be bootstrapped (without bootstrapping the
     * padding's values never reach the real rows).
     */
    boolean zeroesPaddingRows(Ciphertext c, int tokens) {
        return tokens < slots && refresher.bootstraps(c);
    }
    /** A matrix with {@code v} in each of its rows. */
    static Matrix everyRow(double[] v, int rows) {
        double[] d = new double[rows * v.length];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(v, 0, d, r * v.length, v.length);
        }
        return new Matrix(rows, v.length, d);
    }
    /** Column-packed (attention works on columns): blocks are unpacked, others returned as they are. */
    EncryptedTensor asColumns(EncryptedTensor m) {
        return m.layout == Layout.BLOCKS ? unpack(m, 0, m.cols) : m;
    }
    /**
     * Columns [from, to) of a block tensor, one ciphertext each: column c of its block is masked out (one level,
     * which also zeroes its padding rows) and rotated and added over the block (log2 B rotations by P, 2P, ..),
     * which repeats it in every P slots, as a column-packed ciphertext is.
     */
    EncryptedTensor unpack(EncryptedTensor m, int from, int to) {
        int b = m.perCiphertext;
        Ciphertext[] out = new Ciphertext[to - from];
        for (int j = from; j < to; j++) {
            double[] mask = new double[b * slots];
            Arrays.fill(mask, (j % b) * slots, (j % b) * slots + m.rows, 1.0);
            Ciphertext column = ops.plainProduct(m.cts[j / b], mask, OperatorKind.OTHER);
            out[j - from] = rotations.sumOverNeighbours(column, b, OperatorKind.OTHER);
        }
        return new EncryptedTensor(Layout.COLUMNS, m.rows, to - from, out, true);
    }

    EncryptedTensor rowSlice(EncryptedTensor m, int from, int to) {
        ShapeCheck.range("rows", from, to, m.rows);
        if (m.layout == Layout.HEAD_DIAGONALS
                && m.heads.groups() * m.heads.diagonals() == 1
                && from % m.cols == 0
                && to % m.cols == 0) {
            return heads(m, from / m.cols, to / m.cols);
        }
        if (m.layout == Layout.DIAGONALS || m.layout == Layout.HEAD_DIAGONALS) {
            requireColumns(m, "rowRange");
        }
        if (from == 0) {
            return new EncryptedTensor(m.layout, to, m.cols, m.cts, false, m.perCiphertext);
        }
        // Rows move up by `from` inside each column's P slots; what comes in from the next column lands in
        // padding rows only (t + from < to <= P for the rows kept).
        Ciphertext[] out = new Ciphertext[m.cts.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = rotations.rotateBy(m.cts[i], from, OperatorKind.OTHER);
        }
        return new EncryptedTensor(m.layout, to - from, m.cols, out, false, m.perCiphertext);
    }
    /** Heads [from, to) of stacked head scores of one diagonal per ciphertext (head h: P ciphertexts from h·P). */
    private EncryptedTensor heads(EncryptedTensor m, int from, int to) {
        Ciphertext[] cts = Arrays.copyOfRange(m.cts, from * slots, to * slots);
        return to - from == 1
                ? new EncryptedTensor(Layout.DIAGONALS, m.cols, m.cols, cts, m.clean)
                : new EncryptedTensor((to - from) * m.cols, m.cols, cts, m.clean, HeadPacking.stacked(to - from));
    }

    EncryptedTensor joinColumns(List<EncryptedTensor> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("concatColumns: nothing to concatenate");
        }
        int rows = parts.get(0).rows;
        List<Ciphertext> cts = new ArrayList<>();
        boolean clean = true;
        for (EncryptedTensor part : parts) {
            EncryptedTensor p = asColumns(part);
            requireColumns(p, "concatColumns");
            if (p.rows != rows) {
                throw new IllegalArgumentException("concatColumns: row counts differ, " + rows + " vs " + p.rows);
            }
            cts.addAll(Arrays.asList(p.cts));
            clean &= p.clean;
        }
        return new EncryptedTensor(Layout.COLUMNS, rows, cts.size(), cts.toArray(Ciphertext[]::new), clean);
    }

    EncryptedTensor joinRows(List<EncryptedTensor> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("concatRows: nothing to concatenate");
        }
        EncryptedTensor first = parts.get(0);
        List<Ciphertext> cts = new ArrayList<>();
        boolean clean = true;
        for (EncryptedTensor p : parts) {
            if (p.layout != Layout.DIAGONALS || p.perCiphertext != 1 || p.rows != first.rows || p.cols != first.cols) {
                throw new UnsupportedOperationException("concatRows stacks square score blocks of one diagonal per "
                        + "ciphertext (the heads' Q·Kᵀ) of one shape; got " + p);
            }
            cts.addAll(Arrays.asList(p.cts));
            clean &= p.clean;
        }
        return new EncryptedTensor(
                parts.size() * first.rows,
                first.cols,
                cts.toArray(Ciphertext[]::new),
                clean,
                HeadPacking.stacked(parts.size()));
    }
}
