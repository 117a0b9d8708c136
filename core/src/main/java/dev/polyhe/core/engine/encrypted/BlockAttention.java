package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Multi-head attention products on column blocks ({@link Layout#BLOCKS}), all heads of a block at once. A head of
 * d columns (a power of two dividing B) is d neighbouring segments of P slots; its scores come out as
 * {@link Layout#HEAD_DIAGONALS} in the same group of segments: segment e of the group of ciphertext chunk c holds
 * diagonal s = c·E + e.
 *
 * <p>Both products gather a head's d columns by moving whole ciphertexts, not by summing each diagonal over its d
 * segments (log2 d or more rotations per diagonal). The operand rows are first <em>skewed</em>: segment f of each
 * group shifted by f rows (one level, the rotations every row shift shares). A cyclic row shift σ of the skew, masked
 * to the segments f with 0 ≤ f − u &lt; E (one level), then holds, in segment f, column f shifted by σ + f: moved
 * left by u segments, it lines column f up with diagonal s = σ + u of the segment it lands on. So, with
 * K'_u = that masked shift (σ = c·E − u) and u over −(E − 1) .. d − 1:
 * <ul>
 *   <li>Q·Kᵀ: chunk c = Σ_u rot(Q ⊙ K'_u, u segments), d + E − 1 products and rotations per chunk (baby steps in
 *       the shift's task, giant steps on their sums).</li>
 *   <li>A·V: Σ_c Σ_u rot(W_c, −u segments) ⊙ V'_u, the same masked shifts of the skewed values, summed before one
 *       relinearization a batch ({@link #PRODUCTS_PER_RELINEARIZATION}) and one rescale; the weights' rotations are
 *       hoisted (giant steps on W_c, baby steps on each).</li>
 * </ul>
 * The row shifts (2P a pass, the wrapped halves included) are now most of the rotations. At Pythia-70M's shape (8 heads
 * of 64 columns, 128 tokens, B = 256) one layer's attention products take about 2 550 rotations (11 220 when each
 * diagonal was summed over its segments), and its scores are 4 ciphertexts.
 */
final class BlockAttention {
    /**
     * A·V's products summed before one relinearization, at most this many at once: the pending shifted values are
     * alive until then (one batch of row shifts' worth), and each sum saves all its key switches but one.
     */
    private static final int PRODUCTS_PER_RELINEARIZATION = 32;

    private final EncryptedEngine engine;
    private final LeveledOps ops;
    private final Rotations rotations;
    private final Refresher refresher;
    private final int slots;
    private final int columns;
    private final RowShifts shifts;

    BlockAttention(EncryptedEngine engine, int slots, int columns) {
        this.engine = engine;
        this.ops = engine.ops();
        this.rotations = engine.rotations();
        this.refresher = engine.refresher();
        this.slots = slots;
        this.columns = columns;
        this.shifts = new RowShifts(ops, rotations);
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
            // Levels for the skew's mask, the shift's mask and the product, plus (where bootstrapping is possible) one
            // for a scale-drift correction on the way: a refresh inside the loop would cost a bootstrap per shift.
            int spare = refresher.bootstraps(q.cts[block]) && engine.freshLevels() > 3 ? 1 : 0;
            Ciphertext qb = refresher.withLevels(q.cts[block], refresher.levelsFor(q.cts[block]) + spare, op);
            Ciphertext kb = refresher.withLevels(k.cts[block], 2 + refresher.levelsFor(k.cts[block]) + spare, op);
            int valid = Math.min(columns, q.cols - block * columns);
            // Q at the level of the products, the keys two above: every rotation and mask on the fewest limbs
            int productLevel = Math.min(qb.level(), kb.level() - 2);
            Ciphertext skew = skewed(engine.levels().atLevel(kb, productLevel + 2), d, tokens, valid, op);
            Ciphertext qAt = engine.levels().atLevel(qb, productLevel);
            SegmentMoves sums = new SegmentMoves(chunks);
            forEachShift(
                    skew,
                    slots,
                    op,
                    (sigma, shifted) -> {
                        List<SegmentMoves.Part> parts = new ArrayList<>();
                        for (int c = 0; c < chunks; c++) {
                            for (int u : moves(c * perGroup - sigma, d, perGroup)) {
                                Ciphertext keys = shiftedSkew(shifted, sigma, u, d, perGroup, tokens, op);
                                parts.add(sums.baby(c, u, ops.product(qAt, keys, op)));
                            }
                        }
                        return parts;
                    },
                    (sigma, parts) -> sums.addAll(parts));
            for (int c = 0; c < chunks; c++) {
                out[block * chunks + c] = shifts.real(sums.total(c), op);
            }
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
        // Levels up front (the skew's mask, the shift's mask, the product, plus one for a scale-drift correction), on
        // the values and on every score ciphertext, each kind refreshed as one group.
        int spare = refresher.bootstraps(values.cts[0]) && engine.freshLevels() > 3 ? 1 : 0;
        Ciphertext[] allValues = refresher.withLevels(values.cts, 2 + refresher.levelsFor(values.cts[0]) + spare, op);
        Ciphertext[] allWeights = refresher.withLevels(weights.cts, refresher.levelsFor(weights.cts[0]) + spare, op);
        for (int block = 0; block < out.length; block++) {
            int valid = Math.min(columns, values.cols - block * columns);
            // the weights at the level of the products, the values two above: every rotation and mask on the fewest
            // limbs; every chunk's weights moved by every segment step, so that one pass of row shifts serves all
            int productLevel = allValues[block].level() - 2;
            for (int c = 0; c < chunks; c++) {
                productLevel = Math.min(productLevel, allWeights[block * chunks + c].level());
            }
            Ciphertext skew = skewed(engine.levels().atLevel(allValues[block], productLevel + 2), d, tokens, valid, op);
            List<Map<Integer, Ciphertext>> moved = new ArrayList<>();
            for (int c = 0; c < chunks; c++) {
                Ciphertext w = engine.levels().atLevel(allWeights[block * chunks + c], productLevel);
                moved.add(movedSegments(w, d, perGroup, op));
            }
            ProductSum acc = new ProductSum(engine, op);
            List<Ciphertext[]> pending = new ArrayList<>();
            forEachShift(
                    skew,
                    slots,
                    op,
                    (sigma, shifted) -> {
                        List<Ciphertext[]> pairs = new ArrayList<>();
                        for (int c = 0; c < chunks; c++) {
                            for (int u : moves(c * perGroup - sigma, d, perGroup)) {
                                Ciphertext vals = shiftedSkew(shifted, sigma, u, d, perGroup, tokens, op);
                                pairs.add(new Ciphertext[] {moved.get(c).get(-u), vals});
                            }
                        }
                        return pairs;
                    },
                    (sigma, pairs) -> {
                        pending.addAll(pairs);
                        if (pending.size() >= PRODUCTS_PER_RELINEARIZATION) {
                            acc.add(productSum(pending, op));
                        }
                    });
            if (!pending.isEmpty()) {
                acc.add(productSum(pending, op));
            }
            out[block] = shifts.real(acc.result(), op);
        }
        return new EncryptedTensor(Layout.BLOCKS, tokens, values.cols, out, true, columns);
    }

    /** Σ of the pending products with one relinearization; the list emptied. */
    private Ciphertext productSum(List<Ciphertext[]> pending, OperatorKind op) {
        Ciphertext[] as = pending.stream().map(p -> p[0]).toArray(Ciphertext[]::new);
        Ciphertext[] bs = pending.stream().map(p -> p[1]).toArray(Ciphertext[]::new);
        pending.clear();
        return ops.productSumRaw(as, bs, op);
    }

    /**
     * The moves u of a chunk's shift σ: u ≡ c·E − σ (mod P) within −(E − 1) .. d − 1 (none, one, or more where the
     * range exceeds P).
     */
    private int[] moves(int base, int d, int perGroup) {
        int lo = -(perGroup - 1);
        int first = base + Math.floorDiv(lo - base + slots - 1, slots) * slots;
        List<Integer> us = new ArrayList<>();
        for (int u = first; u <= d - 1; u += slots) {
            us.add(u);
        }
        return us.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * c rotated left by v segments for every v of −(d − 1) .. E − 1, keyed by v: the giant steps hoisted on c, the
     * baby steps hoisted on each giant rotation ({@link Packing#babyGiantSteps}).
     */
    private Map<Integer, Ciphertext> movedSegments(Ciphertext c, int d, int perGroup, OperatorKind op) {
        int segments = c.slots() / slots;
        Map<Integer, List<Integer>> byGiant = new TreeMap<>();
        for (int v = -(d - 1); v <= perGroup - 1; v++) {
            byGiant.computeIfAbsent(SegmentStep.of(v, segments).giant(), g -> new ArrayList<>())
                    .add(v);
        }
        int[] giants = byGiant.keySet().stream()
                .filter(g -> g != 0)
                .mapToInt(g -> g * slots)
                .toArray();
        Ciphertext[] giantRotations = giants.length == 0 ? new Ciphertext[0] : rotations.hoisted(c, giants, op);
        Map<Integer, Ciphertext> out = new ConcurrentHashMap<>();
        int i = 0;
        for (Map.Entry<Integer, List<Integer>> e : byGiant.entrySet()) {
            Ciphertext base = e.getKey() == 0 ? c : giantRotations[i++];
            List<Integer> vs = e.getValue();
            int[] babies = vs.stream()
                    .mapToInt(v -> SegmentStep.of(v, segments).baby())
                    .filter(a -> a != 0)
                    .map(a -> a * slots)
                    .toArray();
            Ciphertext[] babyRotations = babies.length == 0 ? new Ciphertext[0] : rotations.hoisted(base, babies, op);
            int j = 0;
            for (int v : vs) {
                out.put(v, SegmentStep.of(v, segments).baby() == 0 ? base : babyRotations[j++]);
            }
        }
        return out;
    }

    /**
     * Sums over the moves u of each chunk: each product rotated by its baby step (in the shift's task), summed per
     * giant step, and the giant steps' sums rotated and added at the end with one division
     * ({@link Rotations#rotateSum}).
     */
    private final class SegmentMoves {
        record Part(int chunk, int giant, Ciphertext rotated) {}

        private final List<Map<Integer, Ciphertext>> perChunk = new ArrayList<>();

        SegmentMoves(int chunks) {
            for (int c = 0; c < chunks; c++) {
                perChunk.add(new TreeMap<>());
            }
        }

        Part baby(int chunk, int u, Ciphertext x) {
            SegmentStep step = SegmentStep.of(u, x.slots() / slots);
            Ciphertext rotated = step.baby() == 0
                    ? x
                    : rotations.hoisted(x, new int[] {step.baby() * slots}, OperatorKind.CIPHERTEXT_MATMUL)[0];
            return new Part(chunk, step.giant(), rotated);
        }

        void addAll(List<Part> parts) {
            for (Part p : parts) {
                perChunk.get(p.chunk())
                        .merge(p.giant(), p.rotated(), (x, y) -> ops.add(x, y, OperatorKind.CIPHERTEXT_MATMUL));
            }
        }

        Ciphertext total(int chunk) {
            Map<Integer, Ciphertext> sums = perChunk.get(chunk);
            Ciphertext[] xs = sums.values().toArray(new Ciphertext[0]);
            int[] steps = sums.keySet().stream().mapToInt(g -> g * slots).toArray();
            return xs.length == 1 && steps[0] == 0
                    ? xs[0]
                    : rotations.rotateSum(xs, steps, OperatorKind.CIPHERTEXT_MATMUL);
        }
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

    /** The work of one shift s, on c shifted by s rows; independent of other shifts. */
    private interface ShiftTask<R> {
        R apply(int s, RowShifts.Shifted shifted);
    }

    /** What is done with a shift's result, in the order of s. */
    private interface ShiftJoin<R> {
        void accept(int s, R result);
    }

    /**
     * Runs {@code task} for s = 0 .. limit−1 with c shifted by s rows ({@link RowShifts#source}), and {@code join} on
     * each result in order of s: the giant steps on the source and, hoisted on each giant rotation, the baby steps
     * ({@link EncryptedEngine#babyRotations}). The shifts of a batch of giant steps run as independent tasks
     * ({@link EncryptedEngine#independently}), as many giant steps to a batch as keep the evaluator's concurrency busy
     * (one below b threads): only one batch's rotations are alive at a time.
     */
    private <R> void forEachShift(Ciphertext c, int limit, OperatorKind op, ShiftTask<R> task, ShiftJoin<R> join) {
        Ciphertext[] sources = shifts.source(c, op);
        int b = Math.min(Packing.babyStep(slots), slots);
        int giants = (limit + b - 1) / b;
        int perBatch = Math.max(1, (engine.concurrency() + b - 1) / b);
        for (int g0 = 0; g0 < giants; g0 += perBatch) {
            List<RowShifts.Shifted> shifted = new ArrayList<>();
            for (int g = g0; g < Math.min(giants, g0 + perBatch); g++) {
                List<Ciphertext[]> babies = new ArrayList<>();
                for (Ciphertext source : sources) {
                    Ciphertext giant = g == 0 ? source : rotations.hoisted(source, new int[] {g * b}, op)[0];
                    babies.add(rotations.babyRotations(giant, op));
                }
                for (int a = 0; a < b && g * b + a < limit; a++) {
                    shifted.add(shifts.shifted(babies, a, g * b + a == 0));
                }
            }
            int first = g0 * b;
            engine.independently(
                    shifted.size(), i -> task.apply(first + i, shifted.get(i)), (r, i) -> join.accept(first + i, r));
        }
    }

    /**
     * The skew of c: segment f of every group of d holds, in slot t, row (t + f) mod P of its column, for the valid
     * columns and source rows below the token count (zero elsewhere). Shifts below min(d, P) only; one level.
     */
    private Ciphertext skewed(Ciphertext c, int d, int tokens, int valid, OperatorKind op) {
        ProductSum sum = new ProductSum(engine, op);
        forEachShift(
                c,
                Math.min(d, slots),
                op,
                (r, shifted) -> {
                    ShiftMask mask = new ShiftMask();
                    for (int column = 0; column < valid && !mask.known(); column++) {
                        if (column % d % slots != r) {
                            continue;
                        }
                        for (int t = 0; t < slots && !mask.known(); t++) {
                            int source = t + r;
                            if ((source < slots ? source : source - slots) < tokens) {
                                mask.set(column * slots + t, source >= slots);
                            }
                        }
                    }
                    return mask.applied(shifted, op);
                },
                (r, part) -> sum.add(part));
        return shifts.real(sum.result(), op);
    }

    /**
     * The skew shifted cyclically by σ rows, kept in the segments f of each group with 0 ≤ f − u &lt; E and in the
     * rows below the token count. One level.
     */
    private Ciphertext shiftedSkew(
            RowShifts.Shifted shifted, int sigma, int u, int d, int perGroup, int tokens, OperatorKind op) {
        ShiftMask mask = new ShiftMask();
        for (int segment = 0; segment < columns && !mask.known(); segment++) {
            int f = segment % d;
            if (f - u < 0 || f - u >= perGroup) {
                continue;
            }
            for (int t = 0; t < tokens && !mask.known(); t++) {
                mask.set(segment * slots + t, t + sigma >= slots);
            }
        }
        return engine.levels().rescale(mask.applied(shifted, op), op);
    }

    /**
     * A row shift's mask: its direct part (rows that do not wrap) and its wrapped part. On a planning engine only
     * whether each part has an entry, which is what the bounds and every decision after need: no arrays of the
     * slots' size (two per product).
     */
    private final class ShiftMask {
        private final double[] direct;
        private final double[] wrapped;
        private boolean anyDirect;
        private boolean wraps;

        ShiftMask() {
            boolean symbolic = engine.valuesIgnored();
            direct = symbolic ? null : new double[columns * slots];
            wrapped = symbolic ? null : new double[columns * slots];
        }

        /** Entry {@code index} of the wrapped part, or of the direct one. */
        void set(int index, boolean wrappedPart) {
            if (wrappedPart) {
                wraps = true;
                if (wrapped != null) {
                    wrapped[index] = 1;
                }
            } else {
                anyDirect = true;
                if (direct != null) {
                    direct[index] = 1;
                }
            }
        }

        /** Whether nothing more can change it: a planning engine's, once both parts have an entry. */
        boolean known() {
            return direct == null && anyDirect && wraps;
        }

        Ciphertext applied(RowShifts.Shifted shifted, OperatorKind op) {
            return direct == null
                    ? shifted.maskedSymbolic(columns * slots, anyDirect, wraps, op)
                    : shifted.masked(direct, wraps ? wrapped : null, op);
        }
    }

    private double[] groupSegments(int groups, int stride, int e, int tokens, int segments) {
        double[] v = new double[segments * slots];
        for (int j = 0; j < groups; j++) {
            Arrays.fill(v, (j * stride + e) * slots, (j * stride + e) * slots + tokens, 1.0);
        }
        return v;
    }
}
