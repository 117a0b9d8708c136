package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;

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
 *   <li>Q·Kᵀ: chunk c = Σ_u rot(Q ⊙ K'_u, u segments), d + E − 1 products per chunk.</li>
 *   <li>A·V: Σ_c Σ_u rot(W_c, −u segments) ⊙ V'_u, the same masked shifts of the skewed values.</li>
 * </ul>
 * A move u is split as the keys hold it, a giant step and a baby step b (multiples of 16 segments and 0 .. 15 at
 * B = 256), and the baby step is taken by the <em>operands</em>: the skew's source is moved by b segments once for
 * each b (15 rotations), and a row shift σ is made from the source of its baby step, so with E and P multiples of
 * 16 (σ's moves in all chunks share b = −σ mod 16) every shift is one rotation and no product is rotated on its own.
 * Q·Kᵀ moves Q by b too and sums each chunk's products per giant step, with one relinearization a giant step for a
 * batch of baby steps ({@link #BABIES_PER_RELINEARIZATION}), the giant steps rotated at the end; A·V moves the
 * weights by the giant steps and sums each baby step's products with one relinearization, the baby steps' sums
 * rotated at the end. The skews are baby-step giant-step too. At Pythia-70M's shape (8 heads of 64 columns, 128
 * tokens, B = 256) one layer's attention products take about 780 rotations (about 1 800 with a rotation per
 * product's move, 11 220 when each diagonal was summed over its segments) and about 200 relinearizations (about
 * 540), and its scores are 4 ciphertexts.
 */
final class BlockAttention {
    /**
     * A·V's products of one baby step summed before one relinearization, at most this many at once (16 at
     * Pythia-70M's shape): the pending shifted values are alive until then, and each sum saves all its key switches
     * but one.
     */
    private static final int PRODUCTS_PER_RELINEARIZATION = 32;

    /**
     * Q·Kᵀ's baby steps whose products are held for one relinearization a giant step: each giant step sums a product
     * of every baby step, so holding more saves more key switches (a quarter of them at 4 of 16 baby steps) but keeps
     * more shifted keys alive (at Pythia-70M's shape about 100 MB a baby step).
     */
    private static final int BABIES_PER_RELINEARIZATION = 4;

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
            int segments = skew.slots() / slots;
            // u = giant + baby: the baby step rides on Q and on the shifted keys' source, the giant on the sums
            Map<Integer, List<Move>> byBaby = movesByBaby(
                    chunks, d, perGroup, u -> SegmentStep.of(u, segments).baby());
            int[] babies = byBaby.keySet().stream().mapToInt(Integer::intValue).toArray();
            Map<Integer, Ciphertext[]> sources = movedSources(shifts.source(skew, op), babies, 1, op);
            Map<Integer, Ciphertext[]> queries = movedSources(new Ciphertext[] {qAt}, babies, 1, op);
            GiantSums sums = new GiantSums(chunks, op);
            for (int first = 0; first < babies.length; first += BABIES_PER_RELINEARIZATION) {
                int[] batch =
                        Arrays.copyOfRange(babies, first, Math.min(babies.length, first + BABIES_PER_RELINEARIZATION));
                engine.independently(
                        batch.length,
                        i -> {
                            int b = batch[i];
                            Ciphertext query = queries.get(b)[0];
                            List<Move> moves = byBaby.get(b);
                            Map<Integer, RowShifts.Shifted> shifted = shiftedBy(sources.get(b), moves, op);
                            List<Pending> pending = new ArrayList<>();
                            for (Move m : moves) {
                                Ciphertext keys = shiftedSkew(
                                        shifted.get(m.sigma()), m.sigma(), m.u(), d, perGroup, tokens, b * slots, op);
                                pending.add(new Pending(
                                        m.chunk(),
                                        SegmentStep.of(m.u(), segments).giant(),
                                        query,
                                        keys));
                            }
                            return pending;
                        },
                        (pending, i) -> sums.hold(pending));
                sums.relinearize();
            }
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
            // limbs
            int productLevel = allValues[block].level() - 2;
            for (int c = 0; c < chunks; c++) {
                productLevel = Math.min(productLevel, allWeights[block * chunks + c].level());
            }
            Ciphertext skew = skewed(engine.levels().atLevel(allValues[block], productLevel + 2), d, tokens, valid, op);
            int segments = skew.slots() / slots;
            // rot(W_c, −u) ⊙ V' = rot(rot(W_c, giant) ⊙ rot(V', −baby), baby) for −u = giant + baby: the giant steps
            // on the weights, the baby steps on the values' source and, once a baby step, on the sums of products
            Map<Integer, List<Move>> byBaby = movesByBaby(
                    chunks, d, perGroup, u -> SegmentStep.of(-u, segments).baby());
            int[] babies = byBaby.keySet().stream().mapToInt(Integer::intValue).toArray();
            Map<Integer, Ciphertext[]> sources = movedSources(shifts.source(skew, op), babies, -1, op);
            List<Map<Integer, Ciphertext>> moved = new ArrayList<>();
            for (int c = 0; c < chunks; c++) {
                Ciphertext w = engine.levels().atLevel(allWeights[block * chunks + c], productLevel);
                int chunk = c;
                int[] giants = byBaby.values().stream()
                        .flatMap(List::stream)
                        .filter(m -> m.chunk() == chunk)
                        .mapToInt(m -> SegmentStep.of(-m.u(), segments).giant())
                        .distinct()
                        .sorted()
                        .toArray();
                moved.add(giantMoves(w, giants, op));
            }
            Ciphertext[] parts = new Ciphertext[babies.length];
            engine.independently(
                    babies.length,
                    i -> {
                        int b = babies[i];
                        List<Move> moves = byBaby.get(b);
                        Map<Integer, RowShifts.Shifted> shifted = shiftedBy(sources.get(b), moves, op);
                        Ciphertext sum = null;
                        List<Ciphertext[]> pending = new ArrayList<>();
                        for (Move m : moves) {
                            Ciphertext vals = shiftedSkew(
                                    shifted.get(m.sigma()), m.sigma(), m.u(), d, perGroup, tokens, -b * slots, op);
                            int giant = SegmentStep.of(-m.u(), segments).giant();
                            pending.add(new Ciphertext[] {moved.get(m.chunk()).get(giant), vals});
                            if (pending.size() == PRODUCTS_PER_RELINEARIZATION) {
                                Ciphertext s = productSum(pending, op);
                                sum = sum == null ? s : ops.add(sum, s, op);
                            }
                        }
                        if (!pending.isEmpty()) {
                            Ciphertext s = productSum(pending, op);
                            sum = sum == null ? s : ops.add(sum, s, op);
                        }
                        return sum;
                    },
                    (sum, i) -> parts[i] = sum);
            int[] steps = Arrays.stream(babies).map(b -> b * slots).toArray();
            out[block] = shifts.real(rotations.rotateSumRescaled(parts, steps, op), op);
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

    /** One product of a pass: chunk c's move u of the operand shifted by σ rows. */
    private record Move(int chunk, int sigma, int u) {}

    /**
     * Every move of a pass, keyed by the baby step {@code babyOf} gives its u (in ascending order). Where E and P
     * are multiples of the segments' baby step (Pythia-70M's shape: 64 and 128 against 16), the moves of a shift σ
     * in all chunks share one baby step, so each shift is made once, from its baby step's source.
     */
    private Map<Integer, List<Move>> movesByBaby(int chunks, int d, int perGroup, IntUnaryOperator babyOf) {
        Map<Integer, List<Move>> byBaby = new TreeMap<>();
        for (int sigma = 0; sigma < slots; sigma++) {
            for (int c = 0; c < chunks; c++) {
                for (int u : moves(c * perGroup - sigma, d, perGroup)) {
                    byBaby.computeIfAbsent(babyOf.applyAsInt(u), b -> new ArrayList<>())
                            .add(new Move(c, sigma, u));
                }
            }
        }
        return byBaby;
    }

    /**
     * Each source moved left by {@code direction}·b segments for every baby step b (b = 0: the sources
     * themselves): hoisted, one decomposition a source; right moves from one giant step right (so that every move is
     * a key of {@link Packing#babyGiantSteps}).
     */
    private Map<Integer, Ciphertext[]> movedSources(
            Ciphertext[] sources, int[] babies, int direction, OperatorKind op) {
        int segments = sources[0].slots() / slots;
        int step = Math.min(Packing.babyStep(segments), segments);
        // right by b = left by (step − b) from a giant step right
        int[] lefts = Arrays.stream(babies)
                .map(b -> (direction > 0 || b == 0 ? b : step - b) * slots)
                .toArray();
        boolean right = direction < 0 && Arrays.stream(babies).anyMatch(b -> b != 0);
        List<Map<Integer, Ciphertext>> moved = new ArrayList<>();
        for (Ciphertext source : sources) {
            Ciphertext base = right ? rotations.rotateSegments(source, -step, op) : source;
            moved.add(rotations.hoistedBy(base, lefts, op));
        }
        Map<Integer, Ciphertext[]> out = new TreeMap<>();
        for (int j = 0; j < babies.length; j++) {
            Ciphertext[] cts = new Ciphertext[sources.length];
            for (int i = 0; i < sources.length; i++) {
                cts[i] = babies[j] == 0 ? sources[i] : moved.get(i).get(lefts[j]);
            }
            out.put(babies[j], cts);
        }
        return out;
    }

    /** c moved left by each of {@code giants} segments (multiples of the baby step), hoisted; keyed by the move. */
    private Map<Integer, Ciphertext> giantMoves(Ciphertext c, int[] giants, OperatorKind op) {
        Map<Integer, Ciphertext> bySlots =
                rotations.hoistedBy(c, Arrays.stream(giants).map(g -> g * slots).toArray(), op);
        Map<Integer, Ciphertext> out = new TreeMap<>();
        for (int g : giants) {
            out.put(g, bySlots.get(g * slots));
        }
        return out;
    }

    /**
     * The row shifts σ of the moves' sources ({@link RowShifts#source}, moved): grouped by σ's baby step, the
     * baby rotation once and the giant steps hoisted on it. With one baby step a source (Pythia-70M's shape:
     * σ ≡ −b mod 16) that is one rotation a shift.
     */
    private Map<Integer, RowShifts.Shifted> shiftedBy(Ciphertext[] sources, List<Move> moves, OperatorKind op) {
        int b = Math.min(Packing.babyStep(slots), slots);
        Map<Integer, TreeSet<Integer>> byBaby = new TreeMap<>();
        for (Move m : moves) {
            byBaby.computeIfAbsent(m.sigma() % b, a -> new TreeSet<>()).add(m.sigma());
        }
        Map<Integer, RowShifts.Shifted> out = new TreeMap<>();
        for (Map.Entry<Integer, TreeSet<Integer>> e : byBaby.entrySet()) {
            int a = e.getKey();
            int[] giants = e.getValue().stream().mapToInt(s -> s - a).toArray();
            List<Map<Integer, Ciphertext>> rotated = new ArrayList<>();
            for (Ciphertext source : sources) {
                Ciphertext base = a == 0 ? source : rotations.hoisted(source, new int[] {a}, op)[0];
                rotated.add(rotations.hoistedBy(base, giants, op));
            }
            for (int sigma : e.getValue()) {
                Ciphertext[] at = new Ciphertext[sources.length];
                for (int i = 0; i < sources.length; i++) {
                    at[i] = rotated.get(i).get(sigma - a);
                }
                out.put(sigma, shifts.shifted(at, sigma == 0));
            }
        }
        return out;
    }

    /** A chunk's giant step (in segments). */
    private record Giant(int chunk, int step) {}

    /** A product of a Q·Kᵀ pass held for its giant step's relinearization. */
    private record Pending(int chunk, int giant, Ciphertext query, Ciphertext keys) {}

    /**
     * Q·Kᵀ's products summed per chunk and giant step: those held (a batch of baby steps') summed with one
     * relinearization a giant step, not rescaled; at the end each chunk's giant steps rotated, summed and rescaled
     * with one division ({@link Rotations#rotateSumRescaled}).
     */
    private final class GiantSums {
        private final OperatorKind op;
        private final List<Map<Integer, Ciphertext>> perChunk = new ArrayList<>();
        private final Map<Giant, List<Ciphertext[]>> held =
                new TreeMap<>(Comparator.comparingInt(Giant::chunk).thenComparingInt(Giant::step));

        GiantSums(int chunks, OperatorKind op) {
            this.op = op;
            for (int c = 0; c < chunks; c++) {
                perChunk.add(new TreeMap<>());
            }
        }

        void hold(List<Pending> products) {
            for (Pending p : products) {
                held.computeIfAbsent(new Giant(p.chunk(), p.giant()), g -> new ArrayList<>())
                        .add(new Ciphertext[] {p.query(), p.keys()});
            }
        }

        /** The held products of each giant step summed with one relinearization, the giant steps at once. */
        void relinearize() {
            List<Map.Entry<Giant, List<Ciphertext[]>>> groups = new ArrayList<>(held.entrySet());
            held.clear();
            engine.independently(groups.size(), i -> productSum(groups.get(i).getValue(), op), (sum, i) -> {
                Giant g = groups.get(i).getKey();
                perChunk.get(g.chunk()).merge(g.step(), sum, (x, y) -> ops.add(x, y, op));
            });
        }

        Ciphertext total(int chunk) {
            Map<Integer, Ciphertext> sums = perChunk.get(chunk);
            Ciphertext[] xs = sums.values().toArray(new Ciphertext[0]);
            int[] steps = sums.keySet().stream().mapToInt(g -> g * slots).toArray();
            return rotations.rotateSumRescaled(xs, steps, op);
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

    /**
     * The skew of c: segment f of every group of d holds, in slot t, row (t + f) mod P of its column, for the valid
     * columns and source rows below the token count (zero elsewhere). Shifts r below min(d, P) only; one level.
     * Baby-step giant-step over r = g·b + a: the baby rotations hoisted on the source ({@link RowShifts#source}),
     * each giant step's masked products summed (its masks moved right by g·b, each a task), and the giant steps'
     * sums rotated, added and rescaled with one division: about 2√min(d, P) rotations, not min(d, P).
     */
    private Ciphertext skewed(Ciphertext c, int d, int tokens, int valid, OperatorKind op) {
        int limit = Math.min(d, slots);
        int b = Math.min(Packing.babyStep(slots), limit);
        Ciphertext[] sources = shifts.source(c, op);
        List<Map<Integer, Ciphertext>> babies = new ArrayList<>();
        for (Ciphertext source : sources) {
            babies.add(rotations.hoistedBy(source, IntStream.range(0, b).toArray(), op));
        }
        int giants = (limit + b - 1) / b;
        Ciphertext[] parts = new Ciphertext[giants];
        engine.independently(
                giants,
                g -> {
                    Ciphertext sum = null;
                    for (int a = 0; a < b && g * b + a < limit; a++) {
                        int r = g * b + a;
                        ShiftMask mask = new ShiftMask(-g * b);
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
                        int baby = a;
                        Ciphertext[] at = babies.stream().map(m -> m.get(baby)).toArray(Ciphertext[]::new);
                        Ciphertext part = mask.applied(shifts.shifted(at, r == 0), op);
                        sum = sum == null ? part : ops.add(sum, part, op);
                    }
                    return sum;
                },
                (sum, g) -> parts[g] = sum);
        int[] steps = IntStream.range(0, giants).map(g -> g * b).toArray();
        return shifts.real(rotations.rotateSumRescaled(parts, steps, op), op);
    }

    /**
     * The skew shifted cyclically by σ rows, kept in the segments f of each group with 0 ≤ f − u &lt; E and in the
     * rows below the token count, moved left by {@code moved} slots as its source was ({@link #movedSources}). One
     * level.
     */
    private Ciphertext shiftedSkew(
            RowShifts.Shifted shifted, int sigma, int u, int d, int perGroup, int tokens, int moved, OperatorKind op) {
        ShiftMask mask = new ShiftMask(moved);
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
        /** Entries land this many slots to the left (cyclically): the mask of an operand moved so. */
        private final int moved;

        private boolean anyDirect;
        private boolean wraps;

        ShiftMask(int moved) {
            this.moved = moved;
            boolean symbolic = engine.valuesIgnored();
            direct = symbolic ? null : new double[columns * slots];
            wrapped = symbolic ? null : new double[columns * slots];
        }

        /** Entry {@code index} of the wrapped part, or of the direct one. */
        void set(int entry, boolean wrappedPart) {
            int index = Math.floorMod(entry - moved, columns * slots);
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
