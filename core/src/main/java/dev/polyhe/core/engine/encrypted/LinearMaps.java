package dev.polyhe.core.engine.encrypted;

import static dev.polyhe.core.engine.encrypted.TensorRanges.linearRange;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.core.engine.ShapeCheck;
import dev.polyhe.core.engine.encrypted.Accounting.MultiplicationKind;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Plaintext linear maps (x·Wᵀ + b) over encrypted activations, and what a {@link RefreshPlan} says about them: each
 * map is a site (its operator path and ordinal) where the plan may refresh the input first or lower it, and where
 * the last map's output lands so that the client can decrypt it. Maps on column blocks are {@link BlockLinear}'s.
 */
final class LinearMaps {
    /**
     * How far inside level 0's half-modulus (q_0/2Δ) a decrypted output's calibrated bound must stay: the bound comes
     * from calibration inputs, a query may exceed it, and a value past q_0/2Δ wraps around to a wrong sign.
     */
    static final double DECRYPTION_HEADROOM = 16;
    /**
     * How far below Δ a linear map may land the model's output at level 0 ({@link #productScaleFor}): ten bits of
     * room for the values (q_0/Δ is only 2^12 on a bootstrapping chain) for ten bits of the rescale's rounding error,
     * which stays near 2^-24 absolute at N = 2^16, Δ = 2^48: far below every accuracy target.
     */
    static final double LANDING_BELOW_DELTA = 0x1p-10;

    private final EncryptedEngine engine;
    private final HeContext context;
    private final Evaluator evaluator;
    private final Accounting accounting;
    private final CiphertextBounds bounds;
    private final Refresher refresher;
    private final LevelsAndScales levels;
    private final LeveledOps ops;
    private final BlockLinear blocks;
    private final int blockColumns;
    private final int maxLevel;
    private final double scale;
    private RefreshPlan plan = RefreshPlan.GREEDY;
    /** Linear maps seen so far per operator path (a site is a path and an ordinal, see {@link RefreshPlan}). */
    private final Map<String, Integer> sites = new HashMap<>();

    /** @param engine whose reserve refreshes a map's input as planned, and whose ranges its output gets */
    LinearMaps(
            EncryptedEngine engine,
            HeContext context,
            Evaluator evaluator,
            Accounting accounting,
            CiphertextBounds bounds,
            Refresher refresher,
            LevelsAndScales levels,
            LeveledOps ops,
            int slots,
            int blockColumns,
            int maxLevel,
            double scale) {
        this.engine = engine;
        this.context = context;
        this.evaluator = evaluator;
        this.accounting = accounting;
        this.bounds = bounds;
        this.refresher = refresher;
        this.levels = levels;
        this.ops = ops;
        this.blocks = new BlockLinear(engine, this, slots, blockColumns);
        this.blockColumns = blockColumns;
        this.maxLevel = maxLevel;
        this.scale = scale;
    }

    /** See {@link EncryptedEngine#follow}. */
    void follow(RefreshPlan plan) {
        this.plan = plan;
    }

    /** The maps on column blocks (and column permutations). */
    BlockLinear blocks() {
        return blocks;
    }

    /** See {@link EncryptedEngine#linear}: by columns, on blocks or into blocks, refreshed first as planned. */
    EncryptedTensor linear(EncryptedTensor x, Matrix weight, double[] bias) {
        ShapeCheck.linear(x.cols, weight, bias);
        if (x.layout == Layout.DIAGONALS || x.layout == Layout.HEAD_DIAGONALS) {
            throw new UnsupportedOperationException("linear needs activations (columns or column blocks), got " + x);
        }
        String path = accounting.currentOperator();
        int ordinal = sites.merge(path, 1, Integer::sum) - 1;
        x = refreshedAsPlanned(x, RefreshPlan.site(path, ordinal));
        String site = RefreshPlan.exactSite(path, ordinal);
        if (engine.recorder() != null) {
            engine.recorder().linear(site, weight, bias == null ? null : bias.clone());
        }
        if (engine.parameters() != null) {
            return engine.linearOnSite(x, site, engine.parameters().linearAt(site));
        }
        ValueRange range = linearRange(x.range, weight, bias);
        EncryptedTensor y = blockColumns == 1
                ? linearOnColumns(x, weight, bias, site, range)
                : x.layout == Layout.BLOCKS
                        ? blocks.onBlocks(x, weight, bias, site, range)
                        : blocks.intoBlocks(x, weight, bias, site, range);
        return engine.ranged(y, range);
    }
    /**
     * The operands of the linear map at {@code site} (its {@link RefreshPlan#exactSite}), at their common level
     * (bootstrapped first if out of levels), then lowered where the plan says so; noted for planners.
     */
    Ciphertext[] linearOperands(Ciphertext[] cts, OperatorKind op, String site) {
        Ciphertext[] xs = levels.atCommonLevel(cts, op);
        var lowered = plan.loweredTo(site);
        if (lowered.isPresent() && xs[0].level() > lowered.getAsInt()) {
            for (int j = 0; j < xs.length; j++) {
                xs[j] = levels.atLevel(xs[j], lowered.getAsInt());
            }
        }
        accounting.linearMap(site, xs[0].level());
        return xs;
    }
    /** See {@link EncryptedEngine#decryptionFloor}. */
    int decryptionFloor(EncryptedTensor out) {
        double bound = out.range == null ? Double.NaN : out.range.maxAbs();
        double landing = out.level() == 0 ? out.scale() : scale * LANDING_BELOW_DELTA;
        return fitsLevelZero(bound, landing) ? 0 : 1;
    }
    /** Whether values up to {@code bound} decrypt at level 0 on {@code at}, with the headroom to spare. */
    private boolean fitsLevelZero(double bound, double at) {
        long[] chain = context.chainPrimes();
        return chain.length > 0 && Double.isFinite(bound) && bound * DECRYPTION_HEADROOM <= chain[0] / at / 2;
    }
    /**
     * The scale the products of the linear map at {@code site} over {@code xs} are made to land on
     * ({@link LevelsAndScales#commonProductScale}), given the range of its output: Δ·q, except for a map the plan
     * lowers (the tail, after the last bootstrap, whose output goes to the client) whose products rescale onto level
     * 0, where values above (q_0/Δ)/2/{@link #DECRYPTION_HEADROOM} would wrap around: it lands on the largest scale
     * at which its range fits, down to Δ·{@link #LANDING_BELOW_DELTA}. One limb less in each of the map's weight
     * encodes, products and
     * rotations than landing on Δ at level 1 (the Pythia-70M shape's LM head: about 100 000 of each).
     */
    double productScaleFor(Ciphertext[] xs, String site, ValueRange out) {
        double target = levels.commonProductScale(xs);
        if (xs[0].level() != 1 || !plan.lowersTail(site) || out == null || fitsLevelZero(out.maxAbs(), scale)) {
            return target;
        }
        double fits = context.chainPrimes()[0] / 2 / DECRYPTION_HEADROOM / out.maxAbs();
        double landing = Math.pow(2, Math.floor(Math.log(fits) / Math.log(2)));
        return landing >= scale * LANDING_BELOW_DELTA && landing < scale ? target / scale * landing : target;
    }
    /**
     * The input of a linear map, refreshed to the top level first where the plan says so. Sites whose input has a
     * ciphertext below the top level are offered to planners ({@link Accounting#refreshSites}).
     */
    private EncryptedTensor refreshedAsPlanned(EncryptedTensor x, String site) {
        if (Arrays.stream(x.cts).noneMatch(c -> c.level() < maxLevel && refresher.bootstraps(c))) {
            return x;
        }
        accounting.refreshSite(site);
        if (!plan.refreshesBefore(site)) {
            return x;
        }
        return refresher.planned(() -> engine.reserve(x, maxLevel, x.range == null ? Double.NaN : x.range.maxAbs()));
    }
    /** One column per ciphertext: each output column a sum of input columns times constants (one level). */
    private EncryptedTensor linearOnColumns(
            EncryptedTensor x, Matrix weight, double[] bias, String site, ValueRange range) {
        int in = x.cols;
        int out = weight.rows();
        OperatorKind op = OperatorKind.PLAINTEXT_MATMUL;
        Ciphertext[] xs = linearOperands(x.cts, op, site);
        double target = productScaleFor(xs, site, range);
        Ciphertext[] ys = new Ciphertext[out];
        for (int o = 0; o < out; o++) {
            ProductSum acc = new ProductSum(engine, op);
            for (int j = 0; j < in; j++) {
                double w = weight.get(o, j);
                if (w == 0) {
                    continue;
                }
                Ciphertext xj = xs[j];
                accounting.countMultiplication(MultiplicationKind.CONSTANT);
                acc.add(bounds.set(
                        accounting.timed(
                                op,
                                PrimitiveKind.MULTIPLY,
                                () -> evaluator.multiplyConstant(xj, w, target / xj.scale())),
                        bounds.of(xj) * Math.abs(w)));
            }
            if (acc.isEmpty()) {
                acc.add(ops.zeroProduct(xs[0], target, op));
            }
            Ciphertext y = acc.result();
            double b = bias == null ? 0 : bias[o];
            ys[o] = b == 0
                    ? y
                    : bounds.set(
                            accounting.timed(op, PrimitiveKind.ADD, () -> evaluator.addConstant(y, b)),
                            bounds.of(y) + Math.abs(b));
        }
        return new EncryptedTensor(Layout.COLUMNS, x.rows, out, ys, x.clean && bias == null);
    }
}
