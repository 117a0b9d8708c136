package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.core.engine.ShapeCheck;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Plaintext linear maps into and on column blocks ({@link Layout#BLOCKS}) for the {@link EncryptedEngine}: weight
 * matrices by the diagonal method, and column permutations. Each costs one level. Output blocks are independent
 * ciphertexts: they run at once where the evaluator gains from it ({@link EncryptedEngine#independently}).
 */
final class BlockLinear {
    private final EncryptedEngine engine;
    private final LinearMaps maps;
    private final LeveledOps ops;
    private final Rotations rotations;
    private final int slots;
    private final int columns;

    BlockLinear(EncryptedEngine engine, LinearMaps maps, int slots, int columns) {
        this.engine = engine;
        this.maps = maps;
        this.ops = engine.ops();
        this.rotations = engine.rotations();
        this.slots = slots;
        this.columns = columns;
    }

    /**
     * Columns (each repeating every P slots) into column blocks: output block m is Σ_j x_j ⊙ w_mj, with w_mj
     * holding W[mB + c, j] across the P slots of column c. One level, no rotation.
     */
    EncryptedTensor intoBlocks(EncryptedTensor x, Matrix weight, double[] bias, String site, ValueRange range) {
        OperatorKind op = OperatorKind.PLAINTEXT_MATMUL;
        int out = weight.rows();
        int b = columns;
        Ciphertext[] xs = maps.linearOperands(x.cts, op, site);
        double target = maps.productScaleFor(xs, site, range);
        Ciphertext[] ys = new Ciphertext[engine.blocks(out)];
        engine.independently(
                ys.length,
                m -> {
                    ProductSum acc = new ProductSum(engine, op);
                    for (int j = 0; j < x.cols; j++) {
                        double[] w = new double[b * slots];
                        boolean any = false;
                        for (int c = 0; c < b && m * b + c < out; c++) {
                            double v = weight.get(m * b + c, j);
                            if (v != 0) {
                                Arrays.fill(w, c * slots, (c + 1) * slots, v);
                                any = true;
                            }
                        }
                        if (any) {
                            acc.addPlainProduct(xs[j], ops.encodeForProduct(w, w.length, xs[j], target, op));
                        }
                    }
                    if (acc.isEmpty()) {
                        acc.add(ops.zeroProduct(xs[0], target, op));
                    }
                    return withBias(acc.result(), m, x.rows, bias, op);
                },
                (y, m) -> ys[m] = y);
        return new EncryptedTensor(Layout.BLOCKS, x.rows, out, ys, x.clean, b);
    }

    /**
     * Column blocks to column blocks by the diagonal method (Halevi–Shoup) over B×B blocks, with baby-step
     * giant-step rotations by multiples of P: with d = g·b + a,
     * y_m = Σ_g rot(Σ_k Σ_a rot(diag_d(W_mk), −g·b·P) ⊙ rot(x_k, a·P), g·b·P),
     * where diag_d(W_mk) holds W[mB + c, kB + (c + d) mod B] across the P slots of column c. The baby rotations
     * of each input block are hoisted and shared by every output block; the giant rotations of an output block
     * share one division by the special primes ({@link EncryptedEngine#rotateSum}); all-zero diagonals are skipped
     * (the blocks of a narrow matrix are mostly zero). One level.
     */
    EncryptedTensor onBlocks(EncryptedTensor x, Matrix weight, double[] bias, String site, ValueRange range) {
        OperatorKind op = OperatorKind.PLAINTEXT_MATMUL;
        int b = columns;
        int babies = Math.min(Packing.babyStep(b), b);
        int giants = b / babies;
        int out = weight.rows();
        int outBlocks = engine.blocks(out);
        Ciphertext[] xs = maps.linearOperands(x.cts, op, site);
        double target = maps.productScaleFor(xs, site, range);
        boolean[][] needed = new boolean[xs.length][babies];
        for (int m = 0; m < outBlocks; m++) {
            for (int k = 0; k < xs.length; k++) {
                for (int d = 0; d < b; d++) {
                    if (hasDiagonal(weight, x.cols, m, k, d)) {
                        needed[k][d % babies] = true;
                    }
                }
            }
        }
        Ciphertext[][] rotated = new Ciphertext[xs.length][babies];
        for (int k = 0; k < xs.length; k++) {
            rotated[k][0] = xs[k];
            boolean[] use = needed[k];
            int[] steps = java.util.stream.IntStream.range(1, babies)
                    .filter(a -> use[a])
                    .map(a -> a * slots)
                    .toArray();
            Ciphertext[] r = steps.length == 0 ? new Ciphertext[0] : rotations.hoisted(xs[k], steps, op);
            for (int i = 0; i < steps.length; i++) {
                rotated[k][steps[i] / slots] = r[i];
            }
        }
        boolean symbolic = engine.valuesIgnored();
        // two output blocks as one complex ciphertext where the keys conjugate: y_m + i·y_m' from complex diagonals
        // (diag_m + i·diag_m')/2 on the same (real) rotations, half the encodes, products and giant rotations, and
        // one conjugation to take the two apart (THOR's two real matrices in one complex ciphertext)
        boolean paired = outBlocks > 1 && rotations.conjugates();
        int tasks = paired ? (outBlocks + 1) / 2 : outBlocks;
        Ciphertext[] ys = new Ciphertext[outBlocks];
        engine.independently(
                tasks,
                t -> {
                    int m = paired ? 2 * t : t;
                    int partner = paired && m + 1 < outBlocks ? m + 1 : -1;
                    List<ProductSum> parts = new ArrayList<>();
                    List<Integer> shifts = new ArrayList<>();
                    for (int g = 0; g < giants; g++) {
                        int shift = g * babies * slots;
                        ProductSum inner = new ProductSum(engine, op);
                        for (int k = 0; k < xs.length; k++) {
                            for (int a = 0; a < babies; a++) {
                                int d = g * babies + a;
                                Plaintext w = symbolic
                                        ? symbolicWeights(weight, x.cols, m, partner, k, d, rotated[k][a], target, op)
                                        : weights(weight, x.cols, m, partner, k, d, shift, rotated[k][a], target, op);
                                if (w != null) {
                                    inner.addPlainProduct(rotated[k][a], w);
                                }
                            }
                        }
                        if (inner.isEmpty()) {
                            continue;
                        }
                        parts.add(inner);
                        shifts.add(shift);
                    }
                    Ciphertext sum = parts.isEmpty()
                            ? engine.levels().rescale(ops.zeroProduct(xs[0], target, op), op)
                            : giantSteps(
                                    parts,
                                    shifts.stream().mapToInt(Integer::intValue).toArray(),
                                    op);
                    if (partner < 0) {
                        return new Ciphertext[] {withBias(sum, m, x.rows, bias, op)};
                    }
                    Ciphertext[] both = rotations.realAndImaginaryTwice(sum, op);
                    return new Ciphertext[] {
                        withBias(both[0], m, x.rows, bias, op), withBias(both[1], partner, x.rows, bias, op)
                    };
                },
                (y, t) -> System.arraycopy(y, 0, ys, paired ? 2 * t : t, y.length));
        return new EncryptedTensor(Layout.BLOCKS, x.rows, out, ys, x.clean, b);
    }

    /**
     * The encoded d-th diagonal of block (m, k), pre-rotated by {@code shift}; with a {@code partner} block m', the
     * complex (diag_m + i·diag_m')/2 (null where the diagonals are all zero).
     */
    private Plaintext weights(
            Matrix weight,
            int in,
            int m,
            int partner,
            int k,
            int d,
            int shift,
            Ciphertext operand,
            double target,
            OperatorKind op) {
        int width = columns * slots;
        double[] diag = diagonal(weight, in, m, k, d);
        if (partner < 0) {
            if (diag == null) {
                return null;
            }
            double[] pre = new double[width];
            preRotate(diag, shift, 1, pre, 0);
            return ops.encodeForProduct(pre, width, operand, target, op);
        }
        double[] other = diagonal(weight, in, partner, k, d);
        if (diag == null && other == null) {
            return null;
        }
        double[] both = new double[2 * width];
        if (diag != null) {
            preRotate(diag, shift, 0.5, both, 0);
        }
        if (other != null) {
            preRotate(other, shift, 0.5, both, width);
        }
        return ops.encodeComplexForProduct(both, width, operand, target, op);
    }

    /**
     * {@link #weights} on a planning engine: whether the diagonals have an entry and how large, not their values
     * (the complex weights bounded as the real run bounds them).
     */
    private Plaintext symbolicWeights(
            Matrix weight,
            int in,
            int m,
            int partner,
            int k,
            int d,
            Ciphertext operand,
            double target,
            OperatorKind op) {
        double maxAbs = diagonalMaxAbs(weight, in, m, k, d);
        if (partner >= 0) {
            // the real run's bound, LeveledOps#complexBound, of the halves
            maxAbs = LeveledOps.complexBound(0.5 * maxAbs, 0.5 * diagonalMaxAbs(weight, in, partner, k, d));
        }
        return maxAbs == 0 ? null : ops.encodeForProductSymbolic(maxAbs, columns * slots, operand, target, op);
    }

    /** v times {@code factor}, moved right by {@code shift} slots (cyclically), into out from {@code offset}. */
    private static void preRotate(double[] v, int shift, double factor, double[] out, int offset) {
        for (int i = 0; i < v.length; i++) {
            out[offset + (i + shift) % v.length] = v[i] * factor;
        }
    }

    /**
     * Σ_g rot(part_g, shift_g), rescaled: the parts rotate before their rescale, so that the giant steps' key switches
     * and the one rescale share a division ({@link EncryptedEngine#rotateSumRescaled}) instead of a rescale per part;
     * where a part had to be rescaled already, each is rescaled, then rotated.
     */
    private Ciphertext giantSteps(List<ProductSum> parts, int[] shifts, OperatorKind op) {
        Ciphertext[] raw = parts.stream().map(ProductSum::unrescaled).toArray(Ciphertext[]::new);
        if (Arrays.stream(raw).allMatch(java.util.Objects::nonNull)) {
            return rotations.rotateSumRescaled(raw, shifts, op);
        }
        return rotations.rotateSum(parts.stream().map(ProductSum::result).toArray(Ciphertext[]::new), shifts, op);
    }

    /**
     * The d-th generalized diagonal of block (m, k) of W, spread over P slots per column (null when all zero):
     * slot c·P + t holds W[mB + c, kB + (c + d) mod B].
     */
    private double[] diagonal(Matrix weight, int in, int m, int k, int d) {
        if (!hasDiagonal(weight, in, m, k, d)) {
            return null;
        }
        double[] v = new double[columns * slots];
        for (int c = 0; c < columns; c++) {
            Arrays.fill(v, c * slots, (c + 1) * slots, diagonalEntry(weight, in, m, k, d, c));
        }
        return v;
    }

    /** The largest |entry| of the d-th diagonal of block (m, k) (0: all zero), without building it. */
    private double diagonalMaxAbs(Matrix weight, int in, int m, int k, int d) {
        double max = 0;
        for (int c = 0; c < columns; c++) {
            max = Math.max(max, Math.abs(diagonalEntry(weight, in, m, k, d, c)));
        }
        return max;
    }

    /** Whether the d-th diagonal of block (m, k) has a nonzero entry (checked without building it). */
    private boolean hasDiagonal(Matrix weight, int in, int m, int k, int d) {
        for (int c = 0; c < columns; c++) {
            if (diagonalEntry(weight, in, m, k, d, c) != 0) {
                return true;
            }
        }
        return false;
    }

    /** W[mB + c, kB + (c + d) mod B], 0 outside W. */
    private double diagonalEntry(Matrix weight, int in, int m, int k, int d, int c) {
        int o = m * columns + c;
        int j = k * columns + (c + d) % columns;
        return o < weight.rows() && j < in ? weight.get(o, j) : 0;
    }

    /** Output block m plus its part of the bias, on the token rows (the padding rows stay as they are). */
    private Ciphertext withBias(Ciphertext r, int m, int rows, double[] bias, OperatorKind op) {
        if (bias == null) {
            return r;
        }
        int b = columns;
        double[] v = new double[b * slots];
        boolean any = false;
        for (int c = 0; c < b && m * b + c < bias.length; c++) {
            double bc = bias[m * b + c];
            if (bc != 0) {
                Arrays.fill(v, c * slots, c * slots + rows, bc);
                any = true;
            }
        }
        if (!any) {
            return r;
        }
        return ops.plainSum(r, v, op);
    }

    /**
     * {@link dev.polyhe.api.arith.TensorOps#permuteColumns} on column blocks: the output columns grouped by source
     * block and by how far they move (rotate_half moves every column by ±half a rotary width); each group is one
     * rotation of its source block by whole segments and a plaintext product with the weights where the group's
     * columns land. One level.
     */
    EncryptedTensor permute(EncryptedTensor m, int[] source, Matrix weights) {
        ShapeCheck.sameShape("permuteColumns", m.rows, source.length, weights);
        OperatorKind op = OperatorKind.OTHER;
        int b = m.perCiphertext;
        Ciphertext[] xs = engine.levels().atCommonLevel(m.cts, op);
        double target = engine.levels().commonProductScale(xs);
        Ciphertext[] out = new Ciphertext[(source.length + b - 1) / b];
        engine.independently(
                out.length,
                ob -> {
                    Map<Long, double[]> moves = new java.util.TreeMap<>();
                    for (int c = 0; c < b && ob * b + c < source.length; c++) {
                        int col = ob * b + c;
                        int src = source[col];
                        if (src >= m.cols) {
                            throw new IllegalArgumentException("permuteColumns: column " + col + " reads column " + src
                                    + " of a matrix with " + m.cols);
                        }
                        if (src < 0) {
                            continue;
                        }
                        long key = (long) (src / b) * b * 2 + (src % b - c + b);
                        double[] mask = moves.computeIfAbsent(key, k -> new double[b * slots]);
                        for (int t = 0; t < m.rows; t++) {
                            mask[c * slots + t] = weights.get(t, col);
                        }
                    }
                    ProductSum acc = new ProductSum(engine, op);
                    for (var e : moves.entrySet()) {
                        int sourceBlock = (int) (e.getKey() / (2L * b));
                        int shift = (int) (e.getKey() % (2L * b)) - b;
                        Ciphertext moved = rotations.rotateSegments(xs[sourceBlock], shift, op);
                        Plaintext mask = ops.encodeForProduct(e.getValue(), b * slots, moved, target, op);
                        acc.addPlainProduct(moved, mask);
                    }
                    if (acc.isEmpty()) {
                        acc.add(ops.zeroProduct(xs[0], target, op));
                    }
                    return acc.result();
                },
                (y, ob) -> out[ob] = y);
        return new EncryptedTensor(Layout.BLOCKS, m.rows, source.length, out, true, b);
    }
}
