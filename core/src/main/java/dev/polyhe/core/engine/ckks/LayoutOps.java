package dev.polyhe.core.engine.ckks;

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
    private final CkksEngine engine;
    private final LeveledOps ops;
    private final Rotations rotations;
    private final Refresher refresher;
    private final LevelsAndScales levels;
    private final int slots;

    /** @param engine whose mulPlain masks padding */
    LayoutOps(CkksEngine engine, LeveledOps ops, Rotations rotations, Refresher refresher, LevelsAndScales levels,
            int slots) {
        this.engine = engine;
        this.ops = ops;
        this.rotations = rotations;
        this.refresher = refresher;
        this.levels = levels;
        this.slots = slots;
    }

    static void requireColumns(CkksTensor m, String op) {
        if (m.layout != Layout.COLUMNS) {
            throw new UnsupportedOperationException(op + " needs a column-packed matrix, got " + m.layout);
        }
    }
    /** Zeroes the entries of a diagonal-layout matrix that lie in padding columns (u ≥ T). */
    CkksTensor maskPadding(CkksTensor a) {
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
     * (a division, an inverse square root) is then told where the padding stands ({@link CkksTensor#padding}), and
     * {@link CkksEngine#bound} moves it into the domain with a plaintext addition. One level.
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
    CkksTensor asColumns(CkksTensor m) {
        return m.layout == Layout.BLOCKS ? unpack(m, 0, m.cols) : m;
    }
    /**
     * Columns [from, to) of a block tensor, one ciphertext each: column c of its block is masked out (one level,
     * which also zeroes its padding rows) and rotated and added over the block (log2 B rotations by P, 2P, ..),
     * which repeats it in every P slots, as a column-packed ciphertext is.
     */
    CkksTensor unpack(CkksTensor m, int from, int to) {
        int b = m.perCiphertext;
        Ciphertext[] out = new Ciphertext[to - from];
        for (int j = from; j < to; j++) {
            double[] mask = new double[b * slots];
            Arrays.fill(mask, (j % b) * slots, (j % b) * slots + m.rows, 1.0);
            Ciphertext column = ops.plainProduct(m.cts[j / b], mask, OperatorKind.OTHER);
            out[j - from] = rotations.sumOverNeighbours(column, b, OperatorKind.OTHER);
        }
        return new CkksTensor(Layout.COLUMNS, m.rows, to - from, out, true);
    }
    CkksTensor rowSlice(CkksTensor m, int from, int to) {
        ShapeCheck.range("rows", from, to, m.rows);
        if (m.layout == Layout.HEAD_DIAGONALS && m.heads.groups() * m.heads.diagonals() == 1
                && from % m.cols == 0 && to % m.cols == 0) {
            return heads(m, from / m.cols, to / m.cols);
        }
        if (m.layout == Layout.DIAGONALS || m.layout == Layout.HEAD_DIAGONALS) {
            requireColumns(m, "rowRange");
        }
        if (from == 0) {
            return new CkksTensor(m.layout, to, m.cols, m.cts, false, m.perCiphertext);
        }
        // Rows move up by `from` inside each column's P slots; what comes in from the next column lands in
        // padding rows only (t + from < to <= P for the rows kept).
        Ciphertext[] out = new Ciphertext[m.cts.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = rotations.rotateBy(m.cts[i], from, OperatorKind.OTHER);
        }
        return new CkksTensor(m.layout, to - from, m.cols, out, false, m.perCiphertext);
    }
    /** Heads [from, to) of stacked head scores of one diagonal per ciphertext (head h: P ciphertexts from h·P). */
    private CkksTensor heads(CkksTensor m, int from, int to) {
        Ciphertext[] cts = Arrays.copyOfRange(m.cts, from * slots, to * slots);
        return to - from == 1 ? new CkksTensor(Layout.DIAGONALS, m.cols, m.cols, cts, m.clean)
                : new CkksTensor((to - from) * m.cols, m.cols, cts, m.clean, HeadPacking.stacked(to - from));
    }
    CkksTensor joinColumns(List<CkksTensor> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("concatColumns: nothing to concatenate");
        }
        int rows = parts.get(0).rows;
        List<Ciphertext> cts = new ArrayList<>();
        boolean clean = true;
        for (CkksTensor part : parts) {
            CkksTensor p = asColumns(part);
            requireColumns(p, "concatColumns");
            if (p.rows != rows) {
                throw new IllegalArgumentException("concatColumns: row counts differ, " + rows + " vs " + p.rows);
            }
            cts.addAll(Arrays.asList(p.cts));
            clean &= p.clean;
        }
        return new CkksTensor(Layout.COLUMNS, rows, cts.size(), cts.toArray(Ciphertext[]::new), clean);
    }
    CkksTensor joinRows(List<CkksTensor> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("concatRows: nothing to concatenate");
        }
        CkksTensor first = parts.get(0);
        List<Ciphertext> cts = new ArrayList<>();
        boolean clean = true;
        for (CkksTensor p : parts) {
            if (p.layout != Layout.DIAGONALS || p.perCiphertext != 1 || p.rows != first.rows || p.cols != first.cols) {
                throw new UnsupportedOperationException("concatRows stacks square score blocks of one diagonal per "
                        + "ciphertext (the heads' Q·Kᵀ) of one shape; got " + p);
            }
            cts.addAll(Arrays.asList(p.cts));
            clean &= p.clean;
        }
        return new CkksTensor(parts.size() * first.rows, first.cols, cts.toArray(Ciphertext[]::new), clean,
                HeadPacking.stacked(parts.size()));
    }
}
