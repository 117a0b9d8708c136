package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Plaintext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * x·Wᵀ with W encrypted ({@link EncryptedWeights}, the layout of {@link SkewedWeights}) on column blocks: a product of
 * ciphertexts in which no weight is stored once per token.
 *
 * <p>The activations are <em>skewed</em> first: S holds in segment j, row t the entry x[t, (j + t) mod B] (row t moved
 * left by t segments; one level, baby-step giant-step over the rows). Then, with σ' = qP + σ over the block's B
 * diagonals, S moved left by σ' segments meets in every slot the weight that a cyclic row shift by σ of the weights'
 * pair (Z_q, Z_{q+1}) holds there, and
 * y_m = Σ_g rot(Σ_k Σ_a rot(S_k, a segments) ⊙ rot(W_mk,σ', −g·b segments), g·b segments), σ' = g·b + a:
 * the baby moves of S hoisted and shared by every output block, each giant step's products summed before one
 * relinearization, the giant steps rotated with one division. The weights' row shifts are the work: one rotation per
 * diagonal of each block (about B·(1 + 2/b) key switches a block), on the weights' few limbs: where the keys conjugate,
 * the two rows of a shift come from one rotation of Z_q + i·rot(Z_{q+1}, −P) and a complex mask
 * ({@link RowShifts}' method), and one conjugation per output block takes the real part. Two levels: the skew's mask
 * and the product (the weights' masks spend a level of the weights, not of x).
 */
final class CiphertextLinear {
    private static final OperatorKind OP = OperatorKind.CIPHERTEXT_MATMUL;

    private final EncryptedEngine engine;
    private final LeveledOps ops;
    private final Rotations rotations;
    private final RowShifts shifts;
    private final int slots;
    private final int columns;

    CiphertextLinear(EncryptedEngine engine, int slots, int columns) {
        this.engine = engine;
        this.ops = engine.ops();
        this.rotations = engine.rotations();
        this.shifts = new RowShifts(ops, rotations);
        this.slots = slots;
        this.columns = columns;
    }

    EncryptedTensor apply(EncryptedTensor x, EncryptedWeights w) {
        return apply(x, w, level -> {});
    }

    /** The name a linear map's bias is consumed under, beside its weights' {@code site}. */
    static String biasSite(String site) {
        return site + "#bias";
    }

    /** @param usedAt told the level the weights are consumed at (they are dropped to it before any rotation) */
    EncryptedTensor apply(EncryptedTensor x, EncryptedWeights w, java.util.function.IntConsumer usedAt) {
        if (x.layout != Layout.BLOCKS || x.perCiphertext != columns) {
            throw new IllegalArgumentException(
                    "a product with encrypted weights needs activations in column blocks of " + columns + ", got " + x);
        }
        if (w.slots != slots || w.columns != columns) {
            throw new IllegalArgumentException(w + " was encrypted for blocks of " + w.columns + " columns of "
                    + w.slots + " rows, but this engine packs " + columns + " columns of " + slots
                    + ": encrypt the weights with this key set's packing");
        }
        if (w.cols != x.cols) {
            throw new IllegalArgumentException("x [" + x.rows + ", " + x.cols + "] times encrypted weights [" + w.rows
                    + ", " + w.cols + "]ᵀ: the weights need " + x.cols + " inputs");
        }
        if (w.level() < 2) {
            throw new IllegalArgumentException(
                    w + ": the weights' masks and the product need two levels; encrypt" + " them at level 2 or above");
        }
        Refresher refresher = engine.refresher();
        Ciphertext[] xs = refresher.withLevels(x.cts, 1 + refresher.levelsFor(x.cts[0]), OP);
        int xLevel = Integer.MAX_VALUE;
        for (Ciphertext c : xs) {
            xLevel = Math.min(xLevel, c.level());
        }
        // the skew and the weights' masks each spend a level above the products'
        int productLevel = Math.min(xLevel, w.level()) - 1;
        usedAt.accept(xLevel);
        int bs = Math.min(Packing.babyStep(columns), columns);
        Ciphertext[][] moved = new Ciphertext[xs.length][];
        for (int k = 0; k < xs.length; k++) {
            Ciphertext skew = skewed(engine.levels().atLevel(xs[k], productLevel + 1), x.rows);
            moved[k] = segmentMoves(skew, bs);
        }
        Masks masks = new Masks(productLevel + 1);
        int outBlocks = SkewedWeights.blocks(w.rows, columns);
        Ciphertext[] ys = new Ciphertext[outBlocks];
        engine.independently(
                outBlocks, m -> outputBlock(m, w, moved, bs, productLevel, masks, x.rows), (y, m) -> ys[m] = y);
        EncryptedTensor y = new EncryptedTensor(Layout.BLOCKS, x.rows, w.rows, ys, true, columns);
        if (x.range == null) {
            return y;
        }
        double bound = x.range.maxAbs() * w.maxRowSum;
        return engine.ranged(y, ValueRange.loose(-bound, bound));
    }

    /** Output block m: Σ_g rot(Σ_k Σ_a moved[k][a] ⊙ weights(σ' = g·b + a) moved right by g·b, g·b segments). */
    private Ciphertext outputBlock(
            int m, EncryptedWeights w, Ciphertext[][] moved, int bs, int productLevel, Masks masks, int tokens) {
        int per = SkewedWeights.perBlock(slots, columns);
        List<Ciphertext[]> sources = new ArrayList<>();
        List<boolean[]> used = new ArrayList<>();
        for (int k = 0; k < moved.length; k++) {
            Ciphertext[] z = w.block(m, k);
            for (int q = 0; q < per; q++) {
                Ciphertext zq = engine.levels().atLevel(z[q], productLevel + 1);
                Ciphertext next =
                        rotations.rotateSegments(engine.levels().atLevel(z[(q + 1) % per], productLevel + 1), -1, OP);
                sources.add(shifts.source(zq, next, OP));
            }
            used.add(diagonalsUsed(w, m, k, tokens));
        }
        int giants = (columns + bs - 1) / bs;
        List<Ciphertext> sums = new ArrayList<>();
        List<Integer> steps = new ArrayList<>();
        for (int g = 0; g < giants; g++) {
            List<Ciphertext> as = new ArrayList<>();
            List<Ciphertext> bsList = new ArrayList<>();
            for (int k = 0; k < moved.length; k++) {
                // the diagonals σ' of this giant step, by the ciphertext q that holds them
                Map<Integer, List<Integer>> byQ = new TreeMap<>();
                for (int a = 0; a < bs && g * bs + a < columns; a++) {
                    int diagonal = g * bs + a;
                    if (used.get(k)[diagonal]) {
                        byQ.computeIfAbsent(diagonal / slots, q -> new ArrayList<>())
                                .add(diagonal % slots);
                    }
                }
                for (var e : byQ.entrySet()) {
                    Ciphertext[] source = sources.get(k * per + e.getKey());
                    List<Map<Integer, Ciphertext>> shifted = new ArrayList<>();
                    for (Ciphertext s : source) {
                        shifted.add(rowShifts(rotations.rotateSegments(s, -g * bs, OP), e.getValue()));
                    }
                    for (int sigma : e.getValue()) {
                        as.add(moved[k][e.getKey() * slots + sigma - g * bs]);
                        bsList.add(masks.applied(shifted, sigma));
                    }
                }
            }
            if (!as.isEmpty()) {
                sums.add(ops.productSumRaw(as.toArray(new Ciphertext[0]), bsList.toArray(new Ciphertext[0]), OP));
                steps.add(Math.floorMod(g * bs, columns) * slots);
            }
        }
        Ciphertext y = rotations.rotateSumRescaled(
                sums.toArray(new Ciphertext[0]),
                steps.stream().mapToInt(Integer::intValue).toArray(),
                OP);
        return shifts.real(y, OP);
    }

    /**
     * The diagonals σ' of block (m, k) that meet a weight in a token's row: W[j, i] lands at row t of diagonal
     * σ' ≡ i − j − t (mod B), so with j below the block's outputs, i below its inputs and t below the tokens, σ' runs
     * over one interval of length inputs + outputs + tokens − 2; the others hold padding only (a matrix narrower than
     * its block) and are skipped, their row shifts and products with them.
     */
    private boolean[] diagonalsUsed(EncryptedWeights w, int m, int k, int tokens) {
        int outputs = Math.min(columns, w.rows - m * columns);
        int inputs = Math.min(columns, w.cols - k * columns);
        boolean[] used = new boolean[columns];
        int lo = -(outputs - 1) - (tokens - 1);
        for (int d = lo; d <= inputs - 1 && d < lo + columns; d++) {
            used[Math.floorMod(d, columns)] = true;
        }
        return used;
    }

    /**
     * c rotated by each row shift σ of {@code sigmas} (0 ≤ σ &lt; P), keyed by σ: the giant steps of the rows' keys
     * hoisted on c, the baby steps hoisted on each giant rotation.
     */
    private Map<Integer, Ciphertext> rowShifts(Ciphertext c, List<Integer> sigmas) {
        int br = Packing.babyStep(slots);
        Map<Integer, List<Integer>> byGiant = new TreeMap<>();
        for (int sigma : sigmas) {
            byGiant.computeIfAbsent(sigma - sigma % br, g -> new ArrayList<>()).add(sigma);
        }
        Map<Integer, Ciphertext> giants = rotations.hoistedBy(
                c, byGiant.keySet().stream().mapToInt(Integer::intValue).toArray(), OP);
        Map<Integer, Ciphertext> out = new TreeMap<>();
        for (var e : byGiant.entrySet()) {
            int giant = e.getKey();
            Map<Integer, Ciphertext> babies = rotations.hoistedBy(
                    giants.get(giant),
                    e.getValue().stream().mapToInt(s -> s - giant).toArray(),
                    OP);
            for (int sigma : e.getValue()) {
                out.put(sigma, babies.get(sigma - giant));
            }
        }
        return out;
    }

    /**
     * The skew of x: row t of every segment moved left by t segments, t below the token count (the padding rows
     * zero). Σ_g rot(Σ_a rowmask(g·b + a) ⊙ rot(x, a segments), g·b segments): b − 1 hoisted baby moves, one giant
     * step per b rows, one level.
     */
    private Ciphertext skewed(Ciphertext x, int tokens) {
        int bs = Math.min(Packing.babyStep(columns), columns);
        int width = columns * slots;
        Ciphertext[] rotated = segmentMoves(x, Math.min(bs, tokens));
        double target = engine.levels().commonProductScale(new Ciphertext[] {x});
        boolean symbolic = engine.valuesIgnored();
        List<ProductSum> parts = new ArrayList<>();
        List<Integer> steps = new ArrayList<>();
        for (int g = 0; g * bs < tokens; g++) {
            ProductSum rows = new ProductSum(engine, OP);
            for (int a = 0; a < bs && g * bs + a < tokens; a++) {
                int t = g * bs + a;
                Plaintext mask;
                if (symbolic) {
                    mask = ops.encodeForProductSymbolic(1, width, rotated[a], target, OP);
                } else {
                    double[] v = new double[width];
                    for (int j = 0; j < columns; j++) {
                        v[j * slots + t] = 1;
                    }
                    mask = ops.encodeForProduct(v, width, rotated[a], target, OP);
                }
                rows.addPlainProduct(rotated[a], mask);
            }
            parts.add(rows);
            steps.add(Math.floorMod(g * bs, columns) * slots);
        }
        int[] shifts = steps.stream().mapToInt(Integer::intValue).toArray();
        Ciphertext[] raw = parts.stream().map(ProductSum::unrescaled).toArray(Ciphertext[]::new);
        if (Arrays.stream(raw).allMatch(Objects::nonNull)) {
            return rotations.rotateSumRescaled(raw, shifts, OP);
        }
        return rotations.rotateSum(parts.stream().map(ProductSum::result).toArray(Ciphertext[]::new), shifts, OP);
    }

    /** c moved left by 0 .. b − 1 segments (element a: by a), hoisted. */
    private Ciphertext[] segmentMoves(Ciphertext c, int bs) {
        Ciphertext[] out = new Ciphertext[bs];
        out[0] = c;
        if (bs > 1) {
            int[] steps = IntStream.range(1, bs).map(a -> a * slots).toArray();
            System.arraycopy(rotations.hoisted(c, steps, OP), 0, out, 1, bs - 1);
        }
        return out;
    }

    /**
     * The row shifts' masks, one per σ at the weights' masking level, shared by every block: rows t with t + σ &lt; P
     * take the direct rotation, the others the wrapped one (complex: (direct − i·wrapped)/2 on one rotation).
     */
    private final class Masks {
        private final int level;
        private final Map<Integer, Plaintext[]> bySigma = new ConcurrentHashMap<>();

        Masks(int level) {
            this.level = level;
        }

        /** The weights of shift σ, masked and rescaled: shifted.get(i) is source i's rotations by σ. */
        Ciphertext applied(List<Map<Integer, Ciphertext>> shifted, int sigma) {
            Plaintext[] p = bySigma.computeIfAbsent(sigma, this::encode);
            Ciphertext lo = shifted.get(0).get(sigma);
            Ciphertext hi = shifted.size() > 1 ? shifted.get(1).get(sigma) : null;
            return engine.levels().rescale(shifts.masked(lo, hi, p, OP), OP);
        }

        private Plaintext[] encode(int sigma) {
            int width = columns * slots;
            if (engine.valuesIgnored()) {
                return shifts.masksSymbolic(width, true, sigma > 0, level, OP);
            }
            double[] direct = new double[width];
            double[] wrapped = new double[width];
            for (int j = 0; j < columns; j++) {
                for (int t = 0; t < slots; t++) {
                    (t + sigma < slots ? direct : wrapped)[j * slots + t] = 1;
                }
            }
            return shifts.masks(direct, sigma > 0 ? wrapped : null, level, OP);
        }
    }
}
