package dev.polyhe.core.engine.encrypted;

import static dev.polyhe.core.engine.encrypted.TensorRanges.bothRanges;
import static dev.polyhe.core.engine.encrypted.TensorRanges.mapRange;
import static dev.polyhe.core.engine.encrypted.TensorRanges.maskedRange;
import static dev.polyhe.core.engine.encrypted.TensorRanges.plainRange;
import static dev.polyhe.core.engine.encrypted.TensorRanges.rowRangeOf;
import static dev.polyhe.core.engine.encrypted.TensorRanges.sumRange;
import static dev.polyhe.core.engine.encrypted.TensorRanges.unionOf;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.OperatorScope;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.Decryptor;
import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.Encryptor;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.core.engine.ShapeCheck;
import dev.polyhe.core.engine.symbolic.SymbolicContext;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import java.util.function.IntFunction;
import java.util.function.ObjIntConsumer;
import java.util.function.Supplier;

/**
 * {@link TensorOps} on CKKS ciphertexts over any {@link dev.polyhe.api.he.HeBackend}: the same model and
 * attention code that runs on the plain engine runs here on encrypted activations.
 *
 * <p>Packing ({@link Layout}, {@link Packing}): activations [T, H] are held in column blocks, B columns of P slots
 * per ciphertext (P a power of two ≥ T; B = 1: one ciphertext per column); attention scores are held as their P
 * generalized diagonals, the heads of a layer stacked ({@link BlockAttention} on blocks). Levels and scales are
 * managed automatically: every product is rescaled at once, operands are brought to a common level, and a ciphertext
 * with no level left for the next product is bootstrapped when the evaluation keys allow it (otherwise the engine
 * fails naming the operator). Every primitive is counted per operator for the latency breakdown
 * ({@link #accounting()}).
 *
 * <p>The engine is the {@link TensorOps} front over pieces of one job each, as OpenFHE composes its CKKS scheme:
 * {@link LeveledOps} (sums and products), {@link LevelsAndScales} (rescaling and alignment), {@link Refresher} (when
 * and how to bootstrap), {@link Rotations}, {@link LayoutOps} and {@link SlotLayout} (the packing),
 * {@link LinearMaps} and {@link BlockLinear} (plaintext linear maps), {@link BlockAttention}, {@link TensorRanges}
 * (value ranges) and {@link ClientCodec} (encryption and decryption).
 *
 * <p>The server side holds an engine without encryptor and decryptor: {@link #fromPlain} and {@link #toPlain}
 * are client operations. Not thread-safe.
 */
public final class EncryptedEngine implements TensorOps<EncryptedTensor> {
    private final HeContext context;
    private final Evaluator evaluator;
    private final WorkSpan workSpan;
    private final int slots;
    private final int blockColumns;
    private final int maxLevel;
    private final double scale;
    private final Accounting accounting = new Accounting();
    private final BlockAttention blockAttention;
    private final CiphertextLinear ciphertextLinear;
    /** The model's parameters, where its owner encrypted them; null: the model passes them in the clear. */
    private EncryptedParameters parameters;
    /** Told of every parameter given (the owner's side of {@link #parameters}); null: nobody. */
    private ParameterRecorder recorder;
    /** Where set, each site's parameter goes in at the level the run consumes it at (see {@link #observeLevels}). */
    private java.util.Map<String, Integer> consumedLevels;
    /** Row-vector operations so far per operator path: their sites' ordinals. */
    private final Map<String, Integer> rowSites = new java.util.concurrent.ConcurrentHashMap<>();

    private final LinearMaps linearMaps;
    private final CiphertextBounds bounds = new CiphertextBounds();
    private final Refresher refresher;
    private final LevelsAndScales levels;
    private final LeveledOps ops;
    private final Rotations rotations;
    private final LayoutOps layoutOps;
    private final ElementWise elementWise;
    private final SlotLayout slotLayout;
    private final ClientCodec client;

    /**
     * Sees every bootstrap the engine does: the ciphertext handed to the backend (after any scaling the engine
     * applied for it), what came back, and that scaling ({@code out ≈ in / inputFactor}). For error traces.
     */
    public interface BootstrapObserver {
        /** @param bound the bound on |values| the engine assumed (NaN: none) */
        void bootstrapped(Ciphertext in, Ciphertext out, double inputFactor, double bound);
    }

    /**
     * Whether encoded values are ignored (a planning engine on a {@code SymbolicContext}): plaintext weights need not
     * be built then, only which of them are nonzero.
     */
    boolean valuesIgnored() {
        return context instanceof SymbolicContext;
    }

    /**
     * Keeps encoded weights in {@code cache} (the key set's, shared by its runs) and takes them from it: a warm query
     * of a served model skips encoding its weight diagonals. Null: none (the default).
     */
    public void useWeightCache(WeightCache cache) {
        ops.useWeightCache(cache);
    }

    /** Follows {@code plan} from the next operation on (the default: {@link RefreshPlan#GREEDY}). */
    public void follow(RefreshPlan plan) {
        linearMaps.follow(plan);
    }

    /**
     * A tensor of this engine with the shape, layout and range of {@code other} (of another engine), its ciphertexts
     * at the same levels and scales: how a planning engine ({@code SymbolicContext}) stands in for a real input.
     */
    public EncryptedTensor likeOf(EncryptedTensor other) {
        return client.likeOf(other);
    }

    /** Sets (or, with null, removes) the observer of bootstraps. */
    public void observeBootstraps(BootstrapObserver observer) {
        refresher.observe(observer);
    }

    /**
     * @param keys the evaluation keys the evaluator holds (for the bootstrapping capability)
     * @param encryptor client side only, else null
     * @param decryptor client side only, else null
     * @param packingSlots P: a power of two ≥ the number of tokens, ≤ N/2
     */
    public EncryptedEngine(
            HeContext context,
            Evaluator evaluator,
            EvaluationKeys keys,
            Encryptor encryptor,
            Decryptor decryptor,
            int packingSlots) {
        this(context, evaluator, keys, encryptor, decryptor, Packing.columns(packingSlots));
    }

    /**
     * @param packing the slots per column, and the columns and score diagonals per ciphertext; rotation keys for
     *     {@link Packing#rotationSteps()} and, to bootstrap, keys for {@link Packing#ciphertextSlots()}
     */
    public EncryptedEngine(
            HeContext context,
            Evaluator evaluator,
            EvaluationKeys keys,
            Encryptor encryptor,
            Decryptor decryptor,
            Packing packing) {
        int maxSlots = context.parameters().slots();
        int packingSlots = packing.slots();
        for (int width : packing.ciphertextSlots()) {
            if (width > maxSlots) {
                throw new IllegalArgumentException(
                        packing + " spans " + width + " slots per ciphertext but N/2 = " + maxSlots);
            }
        }
        this.context = context;
        // every call's seconds on the ciphertexts it makes: the run's work and critical path
        int ringDegree = context.parameters().ringDegree();
        WorkSpan.Tracked tracked =
                WorkSpan.tracking(evaluator, !(context instanceof SymbolicContext), ringDegree, accounting);
        this.workSpan = tracked.workSpan();
        accounting.workSpan(workSpan, ringDegree);
        this.evaluator = tracked.evaluator();
        Encoder encoder = context.encoder();
        this.slots = packingSlots;
        this.blockColumns = packing.columnsPerCiphertext();
        this.maxLevel = topLevel(context.parameters());
        this.scale = context.parameters().scale();
        this.levels = new LevelsAndScales(
                this.evaluator, accounting, bounds, scale, context.parameters().maxLevel());
        this.refresher = new Refresher(levels, context, this.evaluator, keys, accounting, bounds, scale);
        levels.refreshBy(refresher);
        this.ops = new LeveledOps(this.evaluator, encoder, accounting, bounds, refresher, levels, scale);
        this.rotations = new Rotations(ops, levels, this.evaluator, keys, accounting, bounds, packingSlots);
        this.layoutOps = new LayoutOps(this, ops, rotations, refresher, levels, packingSlots);
        this.elementWise = new ElementWise(this, layoutOps);
        this.slotLayout = new SlotLayout(packingSlots);
        this.client =
                new ClientCodec(this, encoder, encryptor, decryptor, bounds, slotLayout, packing, maxLevel, scale);
        this.blockAttention = new BlockAttention(this, packingSlots, blockColumns);
        this.ciphertextLinear = new CiphertextLinear(this, packingSlots, blockColumns);
        this.linearMaps = new LinearMaps(
                this,
                context,
                this.evaluator,
                accounting,
                bounds,
                refresher,
                levels,
                ops,
                packingSlots,
                blockColumns,
                maxLevel,
                scale);
    }

    /**
     * The level fresh ciphertexts start at: the highest one whose prime is about the scale. A bootstrapping chain
     * puts larger primes on top for the bootstrapping circuit alone; rescaling the model's products by them would
     * throw the scale off, so the model starts below them (where bootstrapping also returns ciphertexts).
     */
    public static int topLevel(CkksParameters p) {
        int top = p.maxLevel();
        while (top > 0 && Math.abs(p.logQ().get(top) - p.logScale()) > 1) {
            top--;
        }
        return top == 0 ? p.maxLevel() : top;
    }

    /** The refresh policy: where BlockAttention and BlockLinear get levels and ask what bootstraps. */
    Refresher refresher() {
        return refresher;
    }

    /** Level and scale management: where BlockAttention, BlockLinear and ProductSum rescale and align. */
    LevelsAndScales levels() {
        return levels;
    }

    /** The leveled operations on ciphertexts, for BlockAttention, BlockLinear and the other pieces. */
    LeveledOps ops() {
        return ops;
    }

    /** Rotations and sums of rotations, for BlockAttention and BlockLinear. */
    Rotations rotations() {
        return rotations;
    }

    public Accounting accounting() {
        return accounting;
    }

    /** The work and span (critical path) of the evaluator calls so far: measured, or estimated in a planning run. */
    public WorkSpan workSpan() {
        return workSpan;
    }

    public int packingSlots() {
        return slots;
    }

    @Override
    public String engineName() {
        return "ckks";
    }

    @Override
    public OperatorScope operator(String name) {
        return accounting.open(name);
    }

    /**
     * join(task(i), i) for the independent ciphertexts i &lt; count of one operator: the tasks at once where the
     * evaluator gains from it ({@link Evaluator#concurrency}, see {@link ForkedTasks}), the joins in order on this
     * thread. A task runs primitives only; the decisions (refreshes, scales) are made before, on this thread.
     */
    <R> void independently(int count, IntFunction<R> task, ObjIntConsumer<R> join) {
        ForkedTasks.forEach(count, evaluator.concurrency(), task, join);
    }

    /** Independent operations the evaluator runs at once ({@link Evaluator#concurrency}). */
    int concurrency() {
        return evaluator.concurrency();
    }

    // ---- primitives, timed and counted ----------------------------------------------------------------

    <R> R timed(OperatorKind op, PrimitiveKind prim, Supplier<R> work) {
        return accounting.timed(op, prim, work);
    }

    /** Runs an element-wise operation whose result has range {@code r} (see {@link Refresher#levelsFor}). */
    private EncryptedTensor expecting(ValueRange r, Supplier<EncryptedTensor> work) {
        return refresher.expecting(r == null || !r.tight() ? Double.NaN : r.maxAbs(), () -> ranged(work.get(), r));
    }

    /**
     * Raises the bootstrapping precision to at least {@code bits} until the scope closes: where one bootstrap gives
     * fewer ({@link PreciseBootstrap#singleBootstrapBits}), ciphertexts are refreshed by two.
     */
    @Override
    public OperatorScope precision(double bits) {
        return refresher.precision(bits);
    }

    /** The levels of a fresh (or freshly bootstrapped) ciphertext. */
    int freshLevels() {
        return maxLevel;
    }

    // ---- Arith ---------------------------------------------------------------------------------------------

    @Override
    public EncryptedTensor add(EncryptedTensor a, EncryptedTensor b) {
        return ranged(
                elementWise.zip(a, b, "add", a.clean && b.clean, (x, y) -> ops.add(x, y, OperatorKind.OTHER)),
                bothRanges(a.range, b.range, ValueRange::plus));
    }

    @Override
    public EncryptedTensor sub(EncryptedTensor a, EncryptedTensor b) {
        return ranged(
                elementWise.zip(a, b, "sub", a.clean && b.clean, (x, y) -> ops.sub(x, y, OperatorKind.OTHER)),
                bothRanges(a.range, b.range, ValueRange::minus));
    }

    @Override
    public EncryptedTensor negate(EncryptedTensor a) {
        return ranged(
                elementWise.map(
                        a,
                        a.clean,
                        x -> bounds.same(timed(OperatorKind.OTHER, PrimitiveKind.ADD, () -> evaluator.negate(x)), x)),
                mapRange(a.range, v -> -v));
    }

    @Override
    public EncryptedTensor mul(EncryptedTensor first, EncryptedTensor second) {
        EncryptedTensor[] matched = matched(first, second);
        EncryptedTensor a = matched[0];
        EncryptedTensor b = matched[1];
        return expecting(bothRanges(a.range, b.range, ValueRange::times), () -> {
            refresher.refreshOperands(a, b);
            return elementWise.zip(
                    a, b, "mul", a.clean || b.clean, true, (x, y) -> ops.product(x, y, OperatorKind.OTHER));
        });
    }

    /**
     * The operands of an element-wise operation in one packing: row sums packed several head blocks per ciphertext
     * stay packed among themselves (a division's every step) and are unpacked where they meet anything else.
     */
    EncryptedTensor[] matched(EncryptedTensor a, EncryptedTensor b) {
        if (Objects.equals(a.heads, b.heads)) {
            return new EncryptedTensor[] {a, b};
        }
        return new EncryptedTensor[] {unpackedSums(a), unpackedSums(b)};
    }

    /** Row sums packed several head blocks per ciphertext ({@link HeadPacking}) in their scores' packing; else m. */
    private EncryptedTensor unpackedSums(EncryptedTensor m) {
        if (m.heads == null || m.heads.sumBlocks() == 1) {
            return m;
        }
        return ranged(blockAttention.unpackRowSums(m), m.range);
    }

    @Override
    public EncryptedTensor addConstant(EncryptedTensor a, double c) {
        if (c == 0) {
            return a;
        }
        return padded(
                ranged(
                        elementWise.map(
                                a,
                                false,
                                x -> bounds.set(
                                        timed(OperatorKind.OTHER, PrimitiveKind.ADD, () -> evaluator.addConstant(x, c)),
                                        bounds.of(x) + Math.abs(c))),
                        mapRange(a.range, v -> v + c)),
                a.padding,
                v -> v + c);
    }

    /** t whose padding rows hold what a's held, mapped by f (nothing when unknown). */
    private static EncryptedTensor padded(
            EncryptedTensor t, EncryptedTensor.PaddingRows padding, DoubleUnaryOperator f) {
        t.padding = padding == null ? null : padding.map(f);
        return t;
    }

    @Override
    public EncryptedTensor mulConstant(EncryptedTensor a, double c) {
        return padded(
                expecting(mapRange(a.range, v -> v * c), () -> {
                    // those no spent ciphertext would partner (see refresh) pair among themselves
                    refresher.refreshTogether(
                            Arrays.stream(a.cts).filter(refresher::looselyLarge).toList(),
                            refresher::levelsFor,
                            OperatorKind.OTHER);
                    return elementWise.map(a, a.clean, true, x -> ops.constantProduct(x, c, OperatorKind.OTHER));
                }),
                a.padding,
                v -> v * c);
    }

    @Override
    public EncryptedTensor constantLike(EncryptedTensor like, double c) {
        return ranged(
                elementWise.map(like, c == 0 && like.clean, x -> {
                    Ciphertext zero = evaluator.multiplyInteger(x, 0);
                    return bounds.set(c == 0 ? zero : evaluator.addConstant(zero, c), Math.abs(c));
                }),
                ValueRange.constant(c));
    }

    @Override
    public EncryptedTensor exact(EncryptedTensor a, String function, DoubleUnaryOperator f) {
        throw new NotPolynomialException(function, "ckks");
    }

    /**
     * Bootstraps the ciphertexts with fewer than {@code levels} levels left (at most the levels a bootstrap gives)
     * when the keys allow it and the values are small enough for bootstrapping's modular reduction (within
     * {@link Refresher#safeBootstrapMagnitude}): one refresh of the input instead of one of each power a polynomial
     * derives from it. Larger inputs are left to the program, whose first step scales them down.
     */
    @Override
    public EncryptedTensor reserve(EncryptedTensor a, int levels, double maxAbs) {
        int wanted = Math.min(levels, maxLevel);
        if (Arrays.stream(a.cts).noneMatch(c -> c.level() < wanted && refresher.refreshable(c, maxAbs))) {
            return a;
        }
        // the tensor's ciphertexts that need it are refreshed two by two (a pair bootstrap costs about one), and the
        // bootstraps of different pairs at once where the evaluator gains from it
        List<Ciphertext> due = Arrays.stream(a.cts)
                .filter(c -> c.level() < wanted && refresher.refreshable(c, maxAbs))
                .toList();
        refresher.refreshAtOnce(due, wanted, OperatorKind.OTHER);
        return padded(
                ranged(
                        elementWise.map(
                                a,
                                a.clean,
                                c -> refresher.refreshable(c, maxAbs)
                                        ? refresher.withLevels(c, wanted, OperatorKind.OTHER)
                                        : c),
                        a.range),
                a.padding,
                v -> v);
    }

    /** The calibrated range of a's values (see {@link dev.polyhe.api.arith.Arith#bound}). */
    @Override
    public EncryptedTensor bound(EncryptedTensor a, double lo, double hi) {
        EncryptedTensor.PaddingRows pad = a.padding;
        if (pad == null || pad.value() >= lo && pad.value() <= hi) {
            return padded(ranged(a.with(a.cts, a.clean), ValueRange.interval(lo, hi)), pad, v -> v);
        }
        // Padding rows outside the domain (a masked row sum is 0, where 1/x or 1/√x grows as 2^n under n Goldschmidt
        // iterations, and one huge slot spoils the bootstrap of its whole ciphertext): moved to the domain's middle
        double middle = (lo + hi) / 2;
        double[] shift = new double[a.cts.length == 0 ? 0 : a.cts[0].slots()];
        for (int seg = 0; seg < shift.length / slots; seg++) {
            Arrays.fill(shift, seg * slots + pad.tokens(), (seg + 1) * slots, middle - pad.value());
        }
        EncryptedTensor moved = elementWise.map(a, false, c -> ops.plainSum(c, shift, OperatorKind.OTHER));
        return padded(ranged(moved, ValueRange.interval(lo, hi)), pad, v -> middle);
    }

    /** The range the engine assumes for m's values, as [lo, hi], or null when it has none (for reports). */
    public double[] assumedRange(EncryptedTensor m) {
        return m.range == null ? null : new double[] {m.range.lo(), m.range.hi()};
    }

    /**
     * t with range r: the ciphertexts' bounds are tightened to it (they were set by interval arithmetic primitive by
     * primitive; the range knows more, e.g. that Goldschmidt's e stays below 1).
     */
    EncryptedTensor ranged(EncryptedTensor t, ValueRange r) {
        t.range = r;
        if (r != null) {
            double m = r.maxAbs();
            for (Ciphertext c : t.cts) {
                bounds.tighten(c, m, r.tight());
            }
        }
        return t;
    }

    /** The 1/cols goes first, on the entries: a row sum of big entries (1 000s) would be unsafe to bootstrap. */
    @Override
    public EncryptedTensor rowMeans(EncryptedTensor m) {
        return rowSums(mulConstant(m, 1.0 / m.cols));
    }

    @Override
    public int depth(EncryptedTensor a) {
        return maxLevel - a.level();
    }

    // ---- TensorOps -----------------------------------------------------------------------------------------

    @Override
    public int rows(EncryptedTensor m) {
        return m.rows;
    }

    @Override
    public int cols(EncryptedTensor m) {
        return m.cols;
    }

    /** Ciphertexts of a column-block tensor with this many columns. */
    int blocks(int cols) {
        return (cols + blockColumns - 1) / blockColumns;
    }

    @Override
    public EncryptedTensor fromPlain(Matrix m) {
        return client.fromPlain(m);
    }

    /**
     * Encrypts a square score matrix [T, T] directly in the diagonal layout (client side), as Q·Kᵀ would leave
     * it, with this engine's diagonals per ciphertext: for benchmarks and tests of attention normalization on
     * its own.
     */
    public EncryptedTensor fromPlainScores(Matrix scores) {
        return client.fromPlainScores(scores);
    }

    @Override
    public Matrix toPlain(EncryptedTensor m) {
        return toPlain(m, NoiseFlooding.OFF, null).values();
    }

    /**
     * A decrypted tensor and the noise flooding applied to it (null when off).
     */
    public record Decrypted(Matrix values, NoiseFlooding.Applied flooding) {}

    /**
     * Decrypts (client side), flooding every slot with Gaussian noise when {@code flooding} is enabled: one error
     * estimate for the whole tensor (from the imaginary parts of the slots it reads out), so that no ciphertext's
     * own estimate shows.
     *
     * @param random the source of the flooding noise (a {@link java.security.SecureRandom} outside tests)
     */
    public Decrypted toPlain(EncryptedTensor m, NoiseFlooding flooding, Random random) {
        return client.toPlain(m, flooding, random);
    }

    /** The real parts of every slot of one ciphertext (client side: decrypts). */
    public double[] decryptSlots(Ciphertext c) {
        return client.decryptSlots(c);
    }

    /**
     * Every slot of one ciphertext, real and imaginary parts (client side: decrypts). The model's values are real;
     * an imaginary part is error that rides along, and bootstrapping refreshes it with the real part.
     */
    public double[][] decryptComplex(Ciphertext c) {
        return client.decryptComplex(c);
    }

    @Override
    public EncryptedTensor linear(EncryptedTensor x, Matrix weight, double[] bias) {
        return linearMaps.linear(x, weight, bias);
    }

    /**
     * x·Wᵀ with W encrypted by its owner ({@link #encryptWeights}): see {@link CiphertextLinear}. Two levels of x; the
     * result's padding rows are zero.
     */
    public EncryptedTensor linear(EncryptedTensor x, EncryptedWeights weight) {
        return ciphertextLinear.apply(x, weight);
    }

    /**
     * W [out, in] encrypted (client side) at {@code level} in the layout of {@link SkewedWeights}, for
     * {@link #linear(EncryptedTensor, EncryptedWeights)} on this packing: every weight once. The level is the
     * weights' size: encrypt them at the level their product runs at, plus one.
     */
    public EncryptedWeights encryptWeights(Matrix weight, int level) {
        return client.encryptWeights(weight, level);
    }

    /** A row vector encrypted (client side) at {@code level}, entry j in every row of column j. */
    public EncryptedRow encryptRow(double[] values, int level) {
        return client.encryptRow(values, level);
    }

    /** {@link #encryptWeights} at the level fresh ciphertexts start at. */
    public EncryptedWeights encryptWeights(Matrix weight) {
        return client.encryptWeights(weight, maxLevel);
    }

    /**
     * The lowest level {@code out} may be decrypted at. At level 0: 0 where its values fit level 0's modulus at its
     * own scale with {@link LinearMaps#DECRYPTION_HEADROOM} to spare, else 1 (it is already below its floor).
     * Above: 0 where a linear map run one level lower could land it at level 0 on a scale of at least
     * Δ·{@link LinearMaps#LANDING_BELOW_DELTA} (see {@link LinearMaps#productScaleFor}), else 1.
     */
    public int decryptionFloor(EncryptedTensor out) {
        return linearMaps.decryptionFloor(out);
    }

    @Override
    public EncryptedTensor matmulTransposed(EncryptedTensor q, EncryptedTensor k) {
        q = layoutOps.asColumns(q);
        k = layoutOps.asColumns(k);
        LayoutOps.requireColumns(q, "matmulTransposed");
        LayoutOps.requireColumns(k, "matmulTransposed");
        if (q.cols != k.cols || q.rows != k.rows) {
            throw new IllegalArgumentException("matmulTransposed: [" + q.rows + ", " + q.cols + "] x [" + k.rows + ", "
                    + k.cols + "]ᵀ: the engine multiplies square score blocks (same token count)");
        }
        OperatorKind op = OperatorKind.CIPHERTEXT_MATMUL;
        ProductSum[] sums = new ProductSum[slots];
        for (int j = 0; j < q.cols; j++) {
            Ciphertext kj = refresher.withLevels(k.cts[j], 1, op);
            Ciphertext[] rot = rotations.everyRotation(kj, op);
            for (int s = 0; s < slots; s++) {
                Ciphertext shifted = s == 0 ? kj : rot[s - 1];
                if (sums[s] == null) {
                    sums[s] = new ProductSum(this, op);
                }
                sums[s].add(ops.productRaw(q.cts[j], shifted, op));
            }
        }
        Ciphertext[] diag = new Ciphertext[slots];
        for (int s = 0; s < slots; s++) {
            diag[s] = sums[s].result();
        }
        return ranged(
                new EncryptedTensor(Layout.DIAGONALS, q.rows, k.rows, diag, k.clean),
                sumRange(bothRanges(q.range, k.range, ValueRange::times), q.cols));
    }

    @Override
    public EncryptedTensor matmul(EncryptedTensor a, EncryptedTensor values) {
        EncryptedTensor v = layoutOps.asColumns(values);
        if (a.layout != Layout.DIAGONALS || v.layout != Layout.COLUMNS) {
            throw new UnsupportedOperationException("matmul multiplies attention weights (diagonal layout) by "
                    + "column-packed values; got " + a.layout + " x " + v.layout);
        }
        if (a.cols != v.rows) {
            throw new IllegalArgumentException(
                    "matmul: [" + a.rows + ", " + a.cols + "] x [" + v.rows + ", " + v.cols + "] do not chain");
        }
        if (a.perCiphertext != 1) {
            throw new UnsupportedOperationException("matmul reads one diagonal per ciphertext; got " + a);
        }
        OperatorKind op = OperatorKind.CIPHERTEXT_MATMUL;
        EncryptedTensor w = a.clean ? a : layoutOps.maskPadding(a);
        Ciphertext[] out = new Ciphertext[v.cols];
        for (int j = 0; j < v.cols; j++) {
            Ciphertext vj = refresher.withLevels(v.cts[j], 1, op);
            Ciphertext[] rot = rotations.everyRotation(vj, op);
            ProductSum acc = new ProductSum(this, op);
            for (int s = 0; s < slots; s++) {
                acc.add(ops.productRaw(w.cts[s], s == 0 ? vj : rot[s - 1], op));
            }
            out[j] = acc.result();
        }
        return ranged(
                new EncryptedTensor(Layout.COLUMNS, a.rows, v.cols, out, false),
                sumRange(bothRanges(a.range, v.range, ValueRange::times), a.cols));
    }

    @Override
    public EncryptedTensor rowSums(EncryptedTensor scores) {
        EncryptedTensor m = unpackedSums(scores);
        ValueRange sums = sumRange(m.range, m.cols);
        if (m.layout == Layout.HEAD_DIAGONALS) {
            EncryptedTensor r = blockAttention.rowSums(m.clean ? m : layoutOps.maskPadding(m));
            r.padding = m.cols < slots ? new EncryptedTensor.PaddingRows(m.cols, 0) : null; // zeroed, or clean
            return ranged(r, sums);
        }
        // Padding rows stay in their rows; padding entries of diagonals and padding columns of blocks would not.
        boolean leaks = m.layout == Layout.DIAGONALS || m.layout == Layout.BLOCKS && m.cols % m.perCiphertext != 0;
        EncryptedTensor src = leaks && !m.clean ? layoutOps.maskPadding(m) : m;
        Ciphertext sum = null;
        for (Ciphertext c : src.cts) {
            sum = sum == null ? c : ops.add(sum, c, OperatorKind.OTHER);
        }
        // Diagonals or columns side by side: the total over them lands in every one.
        sum = rotations.sumOverNeighbours(sum, m.perCiphertext, OperatorKind.OTHER);
        // clean padding sums to zero; else the padding rows are zeroed, where they could spoil a bootstrap
        boolean zeroed = !src.clean && layoutOps.zeroesPaddingRows(sum, m.rows);
        if (zeroed) {
            sum = layoutOps.withPaddingRowsZeroed(sum, m.rows, OperatorKind.OTHER);
        }
        Ciphertext[] out = new Ciphertext[src.cts.length];
        Arrays.fill(out, sum);
        // Every entry of a row now holds the row's sum, padding columns of the diagonal layout included.
        // clean where every column the sum lands in is a real one: padding columns of blocks would hold real sums
        boolean realColumnsOnly =
                m.layout == Layout.COLUMNS || m.layout == Layout.BLOCKS && m.cols % m.perCiphertext == 0;
        EncryptedTensor r = m.with(out, realColumnsOnly && (src.clean || zeroed));
        r.padding = m.rows < slots && (zeroed || src.clean) ? new EncryptedTensor.PaddingRows(m.rows, 0) : null;
        return ranged(r, sums);
    }

    @Override
    public EncryptedTensor mulPlain(EncryptedTensor tensor, Matrix plain) {
        EncryptedTensor m = unpackedSums(tensor);
        double[][] vecs = slotLayout.inLayout(m, plain, "mulPlain");
        Ciphertext[] out = new Ciphertext[m.cts.length];
        return expecting(maskedRange(m.range, plain), () -> {
            refresher.refreshOperands(m);
            for (int i = 0; i < out.length; i++) {
                out[i] = ops.plainProduct(m.cts[i], vecs[i], OperatorKind.OTHER);
            }
            return m.with(out, true);
        });
    }

    @Override
    public EncryptedTensor addPlain(EncryptedTensor tensor, Matrix plain) {
        EncryptedTensor m = unpackedSums(tensor);
        double[][] vecs = slotLayout.inLayout(m, plain, "addPlain");
        Ciphertext[] out = new Ciphertext[m.cts.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = ops.plainSum(m.cts[i], vecs[i], OperatorKind.OTHER);
        }
        return ranged(m.with(out, m.clean), bothRanges(m.range, plainRange(plain), ValueRange::plus));
    }

    @Override
    public EncryptedTensor mulRow(EncryptedTensor m, double[] v) {
        ShapeCheck.rowVector("mulRow", m.cols, v);
        if (parameters != null || recorder != null) {
            String site = rowSite("mulRow");
            if (recorder != null) {
                recorder.row(site, v.clone());
            }
            if (parameters != null) {
                EncryptedRow row = parameters.rowAt(site);
                // a product needs the row at m's level
                consumed(site, m.level());
                return mulRow(
                        m, row, bothRanges(m.range, ValueRange.loose(-row.maxAbs, row.maxAbs), ValueRange::times));
            }
        }
        ValueRange r = bothRanges(m.range, rowRangeOf(v), ValueRange::times);
        if (m.layout == Layout.BLOCKS) {
            return ranged(mulPlain(m, LayoutOps.everyRow(v, m.rows)), r);
        }
        LayoutOps.requireColumns(m, "mulRow");
        Ciphertext[] out = new Ciphertext[m.cols];
        return expecting(r, () -> {
            for (int c = 0; c < m.cols; c++) {
                out[c] = ops.constantProduct(m.cts[c], v[c], OperatorKind.OTHER);
            }
            return new EncryptedTensor(m.layout, m.rows, m.cols, out, m.clean);
        });
    }

    @Override
    public EncryptedTensor addRow(EncryptedTensor m, double[] v) {
        ShapeCheck.rowVector("addRow", m.cols, v);
        if (parameters != null || recorder != null) {
            String site = rowSite("addRow");
            if (recorder != null) {
                recorder.row(site, v.clone());
            }
            if (parameters != null) {
                EncryptedRow row = parameters.rowAt(site);
                // its mask to the token rows spends a level of the row's own, and matching m's scale another
                consumed(site, m.level() + 2);
                return addRow(m, row, bothRanges(m.range, ValueRange.loose(-row.maxAbs, row.maxAbs), ValueRange::plus));
            }
        }
        ValueRange r = bothRanges(m.range, rowRangeOf(v), ValueRange::plus);
        if (m.layout == Layout.BLOCKS) {
            return ranged(addPlain(m, LayoutOps.everyRow(v, m.rows)), r);
        }
        LayoutOps.requireColumns(m, "addRow");
        Ciphertext[] out = new Ciphertext[m.cols];
        for (int c = 0; c < m.cols; c++) {
            Ciphertext x = m.cts[c];
            double b = v[c];
            out[c] = b == 0
                    ? x
                    : bounds.set(
                            timed(OperatorKind.OTHER, PrimitiveKind.ADD, () -> evaluator.addConstant(x, b)),
                            bounds.of(x) + Math.abs(b));
        }
        return ranged(new EncryptedTensor(m.layout, m.rows, m.cols, out, false), r);
    }

    @Override
    public EncryptedTensor columns(EncryptedTensor m, int from, int to) {
        ShapeCheck.range("columns", from, to, m.cols);
        if (m.layout == Layout.BLOCKS) {
            return ranged(layoutOps.unpack(m, from, to), m.range);
        }
        LayoutOps.requireColumns(m, "columns");
        return ranged(
                new EncryptedTensor(Layout.COLUMNS, m.rows, to - from, Arrays.copyOfRange(m.cts, from, to), m.clean),
                m.range);
    }

    @Override
    public EncryptedTensor rowRange(EncryptedTensor m, int from, int to) {
        return ranged(layoutOps.rowSlice(unpackedSums(m), from, to), m.range);
    }

    @Override
    public EncryptedTensor concatColumns(List<EncryptedTensor> parts) {
        return ranged(layoutOps.joinColumns(parts), unionOf(parts));
    }

    /**
     * Stacks square score blocks of one diagonal per ciphertext (the heads' products on columns) into
     * {@link Layout#HEAD_DIAGONALS}; the engine keeps nothing else stacked by rows.
     */
    @Override
    public EncryptedTensor concatRows(List<EncryptedTensor> parts) {
        return ranged(layoutOps.joinRows(parts), unionOf(parts));
    }

    /** On column blocks whose heads fit ({@link BlockAttention}) all heads at once; else head by head on columns. */
    @Override
    public EncryptedTensor headScores(EncryptedTensor q, EncryptedTensor k, int heads) {
        if (q.rows != k.rows || q.cols != k.cols || heads < 1 || q.cols % heads != 0) {
            throw new IllegalArgumentException("headScores: " + q + " and " + k + " are not " + heads
                    + " heads of equal size over the same tokens");
        }
        ValueRange r = sumRange(bothRanges(q.range, k.range, ValueRange::times), q.cols / heads);
        if (blockAttention.applies(q, k, q.cols / heads)) {
            return ranged(blockAttention.scores(q, k, heads), r);
        }
        return ranged(TensorOps.super.headScores(layoutOps.asColumns(q), layoutOps.asColumns(k), heads), r);
    }

    @Override
    public EncryptedTensor headContexts(EncryptedTensor headWeights, EncryptedTensor values, int heads) {
        EncryptedTensor weights = unpackedSums(headWeights);
        if (weights.layout == Layout.HEAD_DIAGONALS && weights.heads.heads() != heads) {
            throw new IllegalArgumentException("headContexts: weights " + weights + " are not " + heads + " heads");
        }
        ValueRange r = sumRange(bothRanges(weights.range, values.range, ValueRange::times), weights.cols);
        if (weights.layout == Layout.HEAD_DIAGONALS && weights.heads.groups() * weights.heads.diagonals() > 1) {
            return ranged(blockAttention.contexts(weights, values), r);
        }
        return ranged(TensorOps.super.headContexts(weights, values, heads), r);
    }

    /** On column blocks: see {@link BlockLinear#permute}; otherwise column by column. */
    @Override
    public EncryptedTensor permuteColumns(EncryptedTensor m, int[] source, Matrix weights) {
        boolean dropsColumns = Arrays.stream(source).anyMatch(j -> j < 0);
        ValueRange r = bothRanges(m.range, ValueRange.of(weights.data(), dropsColumns), ValueRange::times);
        return ranged(
                m.layout == Layout.BLOCKS
                        ? linearMaps.blocks().permute(m, source, weights)
                        : TensorOps.super.permuteColumns(m, source, weights),
                r);
    }

    @Override
    public EncryptedTensor rowMaxAbs(EncryptedTensor m) {
        throw new NotPolynomialException("max|x| per row", "ckks");
    }

    /**
     * Runs every linear map, {@link #mulRow} and {@link #addRow} on the owner's encrypted parameters for its site, not
     * on the values the model passes (a server holds the model's magnitudes only); an operation without one fails.
     */
    public void useParameters(EncryptedParameters p) {
        this.parameters = p;
    }

    /**
     * Records, by site, the level each encrypted parameter is consumed at in this run ({@link #useParameters}): a
     * linear map's weights at its activations' level (where the product drops them to), its bias ({@link
     * CiphertextLinear#biasSite}) and an added row two above their operand's (their mask spends one, matching the
     * operand's scale another), a multiplied row at its operand's. The owner encrypts each parameter at that level:
     * no limb is stored that a run drops.
     */
    public void observeLevels(java.util.Map<String, Integer> levels) {
        this.consumedLevels = levels;
    }

    private void consumed(String site, int level) {
        if (consumedLevels != null) {
            consumedLevels.merge(site, level, Math::max);
        }
    }

    /** Tells {@code r} of every parameter the model passes, with its site (see {@link ParameterRecorder}). */
    public void recordParameters(ParameterRecorder r) {
        this.recorder = r;
    }

    /**
     * {@code p} as planning ciphertexts of this engine (a {@link dev.polyhe.core.engine.symbolic.SymbolicContext}'s):
     * the same sites, levels and bounds, for planning a run on them.
     */
    public EncryptedParameters likeOf(EncryptedParameters p) {
        return client.likeOf(p);
    }

    EncryptedParameters parameters() {
        return parameters;
    }

    ParameterRecorder recorder() {
        return recorder;
    }

    /** The site of a row-vector operation: the operator's path, the operation and its ordinal there. */
    private String rowSite(String operation) {
        String path = accounting.currentOperator() + "#" + operation;
        return path + (rowSites.merge(path, 1, Integer::sum) - 1);
    }

    /** A linear map on the owner's encrypted weight and bias ({@link #useParameters}) at {@code name}. */
    EncryptedTensor linearOnSite(EncryptedTensor x, String name, EncryptedParameters.LinearSite site) {
        EncryptedTensor y = ciphertextLinear.apply(x, site.weight(), level -> consumed(name, level));
        if (site.bias() == null) {
            return y;
        }
        consumed(CiphertextLinear.biasSite(name), y.level() + 2);
        double b = site.bias().maxAbs;
        return addRow(y, site.bias(), bothRanges(y.range, ValueRange.loose(-b, b), ValueRange::plus));
    }

    /** See {@link #useParameters}: m ⊙ (every row the encrypted row vector), a ciphertext product per block. */
    private EncryptedTensor mulRow(EncryptedTensor m, EncryptedRow row, ValueRange r) {
        requireRowOperand("mulRow", m, row);
        return expecting(r, () -> {
            Ciphertext[] out = new Ciphertext[m.cts.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = ops.product(m.cts[i], row.cts[i], OperatorKind.OTHER);
            }
            return m.with(out, m.clean);
        });
    }

    /** See {@link #useParameters}: m + the encrypted row vector on the token rows (masked there on its own level). */
    private EncryptedTensor addRow(EncryptedTensor m, EncryptedRow row, ValueRange r) {
        requireRowOperand("addRow", m, row);
        Ciphertext[] out = new Ciphertext[m.cts.length];
        for (int i = 0; i < out.length; i++) {
            Ciphertext onTokenRows = layoutOps.withPaddingRowsZeroed(row.cts[i], m.rows, OperatorKind.OTHER);
            out[i] = ops.add(m.cts[i], onTokenRows, OperatorKind.OTHER);
        }
        return ranged(m.with(out, m.clean), r);
    }

    private void requireRowOperand(String op, EncryptedTensor m, EncryptedRow row) {
        if (m.layout != Layout.BLOCKS || row.cols != m.cols || row.cts.length != m.cts.length) {
            throw new IllegalArgumentException(op + ": the encrypted row " + row + " does not fit " + m
                    + " (encrypted rows need column blocks of the same width)");
        }
    }

    /** The context the engine works in. */
    public HeContext context() {
        return context;
    }
}
