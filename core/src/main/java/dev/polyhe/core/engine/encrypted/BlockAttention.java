package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Plaintext;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Multi-head attention products on column blocks ({@link Layout#BLOCKS}), all heads of a block at once. A head of
 * d columns (a power of two dividing B) is d neighbouring segments of P slots; its scores come out as
 * {@link Layout#HEAD_DIAGONALS} in the same group of segments.
 *
 * <p>The key rows shifted by s inside every segment, K_s[t] = K[(t + s) mod P], are two rotations of the block (by
 * s and by s − P, the part that wraps round) masked and added. Then, for each diagonal s:
 * <ul>
 *   <li>Q·Kᵀ: Q ⊙ K_s summed over each head's d segments (log2 d rotations) lands at the head's first segment; a
 *       mask keeps it there and a rotation puts it at segment s mod E of the head's group, beside the head's other
 *       diagonals. Three levels, about 2 + log2 d + 2 rotations per diagonal and block.</li>
 *   <li>A·V: the head's diagonal s is masked out of its score ciphertext, moved to the head's last segment and
 *       spread over all d by rotate-and-add, then multiplied by V_s. The sum over s is the heads' contexts, back
 *       in column blocks. Two levels.</li>
 * </ul>
 * The shifted key and value rows come from hoisted rotations (giant steps, then baby steps on each) with the
 * engine's keys. At Pythia-70M's shape (8 heads of 64 columns, 128 tokens, B = 256) one layer's attention takes
 * about 5 000 rotations, against about 140 000 on unpacked columns, and its scores are 4 ciphertexts, not 1 024.
 */
final class BlockAttention {
    private final EncryptedEngine engine;
    private final LeveledOps ops;
    private final Rotations rotations;
    private final Refresher refresher;
    private final int slots;
    private final int columns;

    BlockAttention(EncryptedEngine engine, int slots, int columns) {
        this.engine = engine;
        this.ops = engine.ops();
        this.rotations = engine.rotations();
        this.refresher = engine.refresher();
        this.slots = slots;
        this.columns = columns;
    }

    /** Whether heads of {@code headSize} columns of these operands fit the block products. */
    boolean applies(EncryptedTensor a, EncryptedTensor b, int headSize) {
        return columns > 1
                && a.layout == Layout.BLOCKS
                && b.layout == Layout.BLOCKS
                && a.perCiphertext == columns
                && b.perCiphertext == columns
                && Integer.bitCount(headSize) == 1
                && headSize <= columns;
    }

    /** The stacked scores [heads·T, T] of q and k [T, heads·d] (column blocks). */
    EncryptedTensor scores(EncryptedTensor q, EncryptedTensor k, int heads) {
        OperatorKind op = OperatorKind.CIPHERTEXT_MATMUL;
        int tokens = q.rows;
        int d = q.cols / heads;
        HeadPacking packing = new HeadPacking(heads, columns / d, d, Math.min(d, slots), columns);
        int perGroup = packing.diagonals();
        int chunks = packing.chunks(slots);
        Ciphertext[] out = new Ciphertext[packing.ciphertexts(slots)];
        for (int block = 0; block < packing.headBlocks(); block++) {
            // Levels for the row mask, the product and the placing mask, plus (where bootstrapping is possible) one
            // for a scale-drift correction on the way: a refresh inside the loop would cost a bootstrap per diagonal.
            int spare = refresher.bootstraps(q.cts[block]) && engine.freshLevels() > 3 ? 1 : 0;
            Ciphertext qb = refresher.withLevels(q.cts[block], 2 + spare, op);
            Ciphertext kb = refresher.withLevels(k.cts[block], 3 + spare, op);
            int valid = Math.min(columns, q.cols - block * columns);
            // the mask encoded once per level the shifts' sums reach (one, unless a scale correction spent one)
            Map<Integer, Plaintext> starts = new ConcurrentHashMap<>();
            double[] startMask = groupSegments(packing.headsIn(block), d, 0, tokens);
            Ciphertext[] acc = new Ciphertext[chunks];
            forEachShift(
                    kb,
                    op,
                    (s, lo, hi) -> {
                        Ciphertext shifted = shiftedRows(lo, hi, s, tokens, valid, op);
                        Ciphertext sum = rotations.sumOverNeighbours(ops.product(qb, shifted, op), d, op);
                        Ciphertext ready = refresher.withLevels(sum, 1, op);
                        Plaintext start = starts.computeIfAbsent(
                                ready.level(), level -> ops.encode(startMask, startMask.length, level, op));
                        Ciphertext first = engine.levels().rescale(ops.plainProductRaw(ready, start, op), op);
                        return rotations.rotateSegments(first, -(s % perGroup), op);
                    },
                    (s, placed) -> {
                        int c = s / perGroup;
                        acc[c] = acc[c] == null ? placed : ops.add(acc[c], placed, op);
                    });
            System.arraycopy(acc, 0, out, block * chunks, chunks);
        }
        return new EncryptedTensor(heads * tokens, tokens, out, true, packing);
    }

    /** The heads' contexts [T, heads·d] (column blocks) of weights stacked as {@link #scores} leaves them. */
    EncryptedTensor contexts(EncryptedTensor weights, EncryptedTensor values) {
        OperatorKind op = OperatorKind.CIPHERTEXT_MATMUL;
        HeadPacking packing = weights.heads;
        int tokens = weights.cols;
        int d = packing.stride();
        if (values.layout != Layout.BLOCKS
                || values.perCiphertext != columns
                || values.rows != tokens
                || values.cols != packing.heads() * d
                || values.cts.length != packing.headBlocks()) {
            throw new IllegalArgumentException("headContexts: weights " + weights + " do not match values " + values);
        }
        int perGroup = packing.diagonals();
        int chunks = packing.chunks(slots);
        Ciphertext[] out = new Ciphertext[values.cts.length];
        // Levels up front (mask, then product, plus one for a scale-drift correction), on the values and on every
        // score ciphertext, each kind refreshed as one group: a spread diagonal is a new ciphertext each time, so one
        // refreshed on the way would cost a bootstrap per diagonal.
        int spare = refresher.bootstraps(values.cts[0]) && engine.freshLevels() > 3 ? 1 : 0;
        Ciphertext[] allValues = refresher.withLevels(values.cts, 2 + spare, op);
        Ciphertext[] allWeights = refresher.withLevels(weights.cts, 2 + spare, op);
        for (int block = 0; block < out.length; block++) {
            int first = block * chunks;
            int headsHere = packing.headsIn(block);
            Ciphertext vb = allValues[block];
            Ciphertext[] w = Arrays.copyOfRange(allWeights, first, first + chunks);
            int valid = Math.min(columns, values.cols - block * columns);
            ProductSum acc = new ProductSum(engine, op);
            forEachShift(
                    vb,
                    op,
                    (s, lo, hi) -> {
                        Ciphertext shifted = shiftedRows(lo, hi, s, tokens, valid, op);
                        int e = s % perGroup;
                        Ciphertext picked =
                                ops.plainProduct(w[s / perGroup], groupSegments(headsHere, d, e, tokens), op);
                        // From segment e of each group to its last segment, then spread over the group's d segments.
                        Ciphertext spread =
                                rotations.sumOverNeighbours(rotations.rotateSegments(picked, e + 1 - d, op), d, op);
                        return ops.productRaw(spread, shifted, op);
                    },
                    (s, product) -> acc.add(product));
            out[block] = acc.result();
        }
        return new EncryptedTensor(Layout.BLOCKS, tokens, values.cols, out, true, columns);
    }

    /**
     * Row sums of stacked head scores: each head block's ciphertexts added, then its E diagonals summed by
     * rotate-and-add. Unless one group fills the ciphertext (the sum then lands everywhere), the sum at each group's
     * first segment is masked, and the sums of up to {@link #sumBlocks} head blocks are placed side by side and
     * spread over their groups' segments in one ciphertext ({@link HeadPacking}): a division of the sums then works
     * on one ciphertext, not on one per block. Groups without a head get head 0's sums, a pack's missing blocks its
     * first block's, and padding rows zero, as the scores' padding is ({@code m} is clean): the engine moves them into
     * a
     * division's domain when the division announces it ({@link EncryptedEngine#bound}).
     */
    EncryptedTensor rowSums(EncryptedTensor m) {
        OperatorKind op = OperatorKind.OTHER;
        HeadPacking packing = m.heads;
        int tokens = m.cols;
        int chunks = packing.chunks(slots);
        int blocks = packing.headBlocks();
        Ciphertext[] out = new Ciphertext[m.cts.length];
        if (packing.oneGroupFills()) {
            for (int block = 0; block < blocks; block++) {
                Ciphertext sum = blockSum(m, block);
                Arrays.fill(out, block * chunks, (block + 1) * chunks, sum);
            }
            return m.with(out, false);
        }
        int pack = sumBlocks(packing);
        int stride = packing.stride();
        for (int first = 0; first < blocks; first += pack) {
            Ciphertext placed = null;
            Ciphertext firstSums = null;
            for (int j = 0; j < pack; j++) {
                Ciphertext sums = first + j < blocks ? groupFirsts(m, first + j) : firstSums;
                firstSums = j == 0 ? sums : firstSums;
                // block j from each group's first segment to its segment stride − pack + j ≡ j (mod pack)
                Ciphertext moved = rotations.rotateSegments(sums, pack - stride - j, op);
                placed = placed == null ? moved : ops.add(placed, moved, op);
            }
            Ciphertext spread = rotations.sumOverNeighbours(placed, stride, pack, op);
            Arrays.fill(out, first * chunks, Math.min(blocks, first + pack) * chunks, spread);
        }
        return new EncryptedTensor(m.rows, m.cols, out, false, packing.withSumBlocks(pack));
    }

    /**
     * Head blocks whose row sums share a ciphertext: the least power of two covering the blocks, at most the
     * stride (one segment of each group per block); 1 for one block or one segment per head.
     */
    static int sumBlocks(HeadPacking packing) {
        int blocks = packing.headBlocks();
        int pack = 1;
        while (pack < blocks && pack * 2 <= packing.stride()) {
            pack *= 2;
        }
        return pack;
    }

    /** Head block {@code block}'s ciphertexts added and its E diagonals summed: row sums in every diagonal slot. */
    private Ciphertext blockSum(EncryptedTensor m, int block) {
        OperatorKind op = OperatorKind.OTHER;
        int chunks = m.heads.chunks(slots);
        Ciphertext sum = null;
        for (int c = 0; c < chunks; c++) {
            Ciphertext x = m.cts[block * chunks + c];
            sum = sum == null ? x : ops.add(sum, x, op);
        }
        return rotations.sumOverNeighbours(sum, m.heads.diagonals(), op);
    }

    /** A head block's row sums at each group's first segment (zero elsewhere), head 0's in groups without a head. */
    private Ciphertext groupFirsts(EncryptedTensor m, int block) {
        OperatorKind op = OperatorKind.OTHER;
        HeadPacking packing = m.heads;
        int tokens = m.cols;
        int stride = packing.stride();
        int segments = packing.segments();
        Ciphertext sum = blockSum(m, block);
        int heads = packing.headsIn(block);
        Ciphertext firsts = ops.plainProduct(sum, groupSegments(heads, stride, 0, tokens, segments), op);
        if (heads < packing.groups()) {
            Ciphertext head0 = ops.plainProduct(sum, groupSegments(1, stride, 0, tokens, segments), op);
            for (int j = heads; j < packing.groups(); j++) {
                firsts = ops.add(firsts, rotations.rotateSegments(head0, -j * stride, op), op);
            }
        }
        return firsts;
    }

    /**
     * Row sums packed by {@link #rowSums} back in the scores' packing, where products with scores need them: each
     * block's segments of its packed ciphertext masked (one level) and spread over its groups' segments.
     */
    EncryptedTensor unpackRowSums(EncryptedTensor m) {
        OperatorKind op = OperatorKind.OTHER;
        HeadPacking packing = m.heads;
        int pack = packing.sumBlocks();
        int chunks = packing.chunks(slots);
        int stride = packing.stride();
        Ciphertext[] out = new Ciphertext[m.cts.length];
        for (int block = 0; block < packing.headBlocks(); block++) {
            int j = block % pack;
            // every row: the packed padding rows hold real rows' sums, and so must the unpacked
            double[] mask = groupSegments(packing.groups(), stride, j, slots, packing.segments());
            Ciphertext picked = ops.plainProduct(m.cts[block * chunks], mask, op);
            Ciphertext spread =
                    rotations.sumOverNeighbours(rotations.rotateSegments(picked, j + 1 - stride, op), stride, op);
            Arrays.fill(out, block * chunks, (block + 1) * chunks, spread);
        }
        return new EncryptedTensor(m.rows, m.cols, out, m.clean, packing.withSumBlocks(1));
    }

    /** The work of one shift s, on c rotated by s and by s − P (null for s = 0); independent of other shifts. */
    private interface ShiftTask<R> {
        R apply(int s, Ciphertext lo, Ciphertext hi);
    }

    /** What is done with a shift's result, in the order of s. */
    private interface ShiftJoin<R> {
        void accept(int s, R result);
    }

    /**
     * Runs {@code task} for s = 0 .. P−1 with c rotated by s and by s − P, and {@code join} on each result in order
     * of s: the rotation by −P once, then on both the giant steps and, hoisted on each giant rotation, the baby steps
     * ({@link EncryptedEngine#babyRotations}). The shifts of a batch of giant steps run as independent tasks
     * ({@link EncryptedEngine#independently}), as many giant steps to a batch as keep the evaluator's concurrency busy
     * (one below b threads): only one batch's rotations are alive at a time (2b ciphertexts a giant step, not 2P).
     */
    private <R> void forEachShift(Ciphertext c, OperatorKind op, ShiftTask<R> task, ShiftJoin<R> join) {
        Ciphertext minus = rotations.rotateSegments(c, -1, op);
        int b = Math.min(Packing.babyStep(slots), slots);
        int giants = (slots + b - 1) / b;
        int perBatch = Math.max(1, (engine.concurrency() + b - 1) / b);
        for (int g0 = 0; g0 < giants; g0 += perBatch) {
            java.util.List<Ciphertext> los = new java.util.ArrayList<>();
            java.util.List<Ciphertext> his = new java.util.ArrayList<>();
            for (int g = g0; g < Math.min(giants, g0 + perBatch); g++) {
                Ciphertext giant = g == 0 ? c : rotations.hoisted(c, new int[] {g * b}, op)[0];
                Ciphertext[] lo = rotations.babyRotations(giant, op);
                Ciphertext[] hi = rotations.babyRotations(rotations.hoisted(minus, new int[] {g * b}, op)[0], op);
                for (int a = 0; a < b && g * b + a < slots; a++) {
                    los.add(lo[a]);
                    his.add(g * b + a == 0 ? null : hi[a]);
                }
            }
            int first = g0 * b;
            engine.independently(
                    los.size(),
                    i -> task.apply(first + i, los.get(i), his.get(i)),
                    (r, i) -> join.accept(first + i, r));
        }
    }

    /**
     * K_s: slot t of segment c holds row (t + s) mod P of column c, for the valid columns and for rows t and
     * (t + s) mod P below the token count (zero elsewhere). One level.
     */
    private Ciphertext shiftedRows(Ciphertext lo, Ciphertext hi, int s, int tokens, int valid, OperatorKind op) {
        double[] direct = new double[columns * slots];
        double[] wrapped = new double[columns * slots];
        boolean wraps = false;
        for (int t = 0; t < tokens; t++) {
            int u = t + s;
            double[] target = u < slots ? direct : wrapped;
            if ((u < slots ? u : u - slots) >= tokens) {
                continue;
            }
            wraps |= u >= slots;
            for (int c = 0; c < valid; c++) {
                target[c * slots + t] = 1;
            }
        }
        Ciphertext r = ops.plainProductRaw(lo, ops.encode(direct, direct.length, lo.level(), op), op);
        if (wraps) {
            Plaintext w = ops.encode(wrapped, wrapped.length, hi.level(), op);
            r = ops.add(r, ops.plainProductRaw(hi, w, op), op);
        }
        return engine.levels().rescale(r, op);
    }

    /** 1 at segment j·stride + e of the first {@code groups} groups, rows below {@code tokens}; B segments. */
    private double[] groupSegments(int groups, int stride, int e, int tokens) {
        return groupSegments(groups, stride, e, tokens, columns);
    }

    private double[] groupSegments(int groups, int stride, int e, int tokens, int segments) {
        double[] v = new double[segments * slots];
        for (int j = 0; j < groups; j++) {
            Arrays.fill(v, (j * stride + e) * slots, (j * stride + e) * slots + tokens, 1.0);
        }
        return v;
    }
}
