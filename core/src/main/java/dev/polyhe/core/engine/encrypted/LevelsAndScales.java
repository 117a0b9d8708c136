package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.core.engine.encrypted.Accounting.MultiplicationKind;
import java.util.Arrays;

/**
 * Levels and scales, the leveled scheme's bookkeeping: rescaling (and bringing a drifted scale back onto Δ), the
 * primes learnt from it, and operands brought to one level and one exact scale. A ciphertext short of levels is the
 * {@link Refresher}'s; the two call each other (a refresh adjusts a scale, a rescale offers a bootstrap partner).
 */
final class LevelsAndScales {
    /** Scales further than this from Δ (in bits) are brought back: see {@link #rescale}. */
    private static final double MAX_SCALE_DRIFT_BITS = 0.5;

    /**
     * Relative scale difference below which two operands count as equal (values then err by about this much): the
     * rounding of scale labels, no more. Products land on Δ exactly, and what does not (a ciphertext product, Δ²/q) is
     * off by the prime's distance from Δ, as little as 2^-29 on small rings: added as equal, that error sits in the
     * real parts alone, where the imaginary parts that noise flooding sizes itself by cannot see it.
     */
    private static final double SCALE_MATCH = 0x1p-40;

    private final Evaluator evaluator;
    private final Accounting accounting;
    private final CiphertextBounds bounds;
    private final double scale;
    /** The prime each level's rescale divides by, learnt from the rescales (0: not yet). */
    private final double[] primes;

    private Refresher refresher;

    /** @param chainTop the modulus chain's top level (above the model's, on a bootstrapping chain) */
    LevelsAndScales(Evaluator evaluator, Accounting accounting, CiphertextBounds bounds, double scale, int chainTop) {
        this.evaluator = evaluator;
        this.accounting = accounting;
        this.bounds = bounds;
        this.scale = scale;
        this.primes = new double[chainTop + 1];
    }

    /** Set once, by the engine, right after both are built. */
    void refreshBy(Refresher r) {
        this.refresher = r;
    }

    static boolean sameScale(double a, double b) {
        return Math.abs(a - b) <= SCALE_MATCH * Math.max(a, b);
    }

    Ciphertext atLevel(Ciphertext c, int level) {
        return c.level() == level ? c : bounds.same(evaluator.dropToLevel(c, level), c);
    }

    /**
     * Rescales by the last prime. The primes are only close to Δ, and a squaring doubles the relative distance of
     * a scale from Δ (s' = s²/q), so chains of squarings (Goldschmidt, powers) let the scale run away until it
     * overflows the modulus. A result that has drifted more than {@value #MAX_SCALE_DRIFT_BITS} bit from Δ is put
     * back onto Δ exactly, at the cost of one level, rarely (every dozen squarings or so).
     */
    Ciphertext rescale(Ciphertext c, OperatorKind op) {
        return settled(rescaleExact(c, op), op);
    }

    /** A result just rescaled, its scale corrected where it drifted, noted as a bootstrap partner when spent. */
    Ciphertext settled(Ciphertext r, OperatorKind op) {
        if (Math.abs(Math.log(r.scale() / scale)) > MAX_SCALE_DRIFT_BITS * Math.log(2)
                && r.level() >= 1
                && !refresher.keptToScaleDown(r)) {
            r = adjust(r, r.level() - 1, scale, op);
        }
        // the result, not the ciphertext before a scale correction, is what will run out of levels next
        refresher.spent(r);
        return r;
    }

    /** Rescales by the last prime, nothing more. */
    private Ciphertext rescaleExact(Ciphertext c, OperatorKind op) {
        return rescaled(
                c.level(),
                c.scale(),
                bounds.same(accounting.timed(op, PrimitiveKind.RESCALE, () -> evaluator.rescale(c)), c));
    }

    /** r, a rescale of something at {@code level} and {@code scale}: the level spent and the prime learnt. */
    Ciphertext rescaled(int level, double scale, Ciphertext r) {
        accounting.levels(level, r.level());
        primes[level] = scale / r.scale();
        return r;
    }

    /**
     * Two operands at one level and one scale. Operands that took different paths (a rescaled product beside a
     * dropped ciphertext) have drifted apart by the ratio of the primes to Δ; the higher one is brought down onto
     * the lower one's exact scale (see {@link #adjust}), or, at one level, the one of larger scale onto the other's
     * one level lower.
     */
    Ciphertext[] aligned(Ciphertext a, Ciphertext b, OperatorKind op) {
        Ciphertext[] refreshed = {refresher.refreshedBelow(a, b.level()), refresher.refreshedBelow(b, a.level())};
        a = refreshed[0];
        b = refreshed[1];
        if (sameScale(a.scale(), b.scale())) {
            int level = Math.min(a.level(), b.level());
            return new Ciphertext[] {atLevel(a, level), atLevel(b, level)};
        }
        if (a.level() > b.level()) {
            return new Ciphertext[] {adjust(a, b.level(), b.scale(), op), b};
        }
        if (b.level() > a.level()) {
            return new Ciphertext[] {a, adjust(b, a.level(), a.scale(), op)};
        }
        // both spent: refreshed together, as one pair bootstrap where they allow it
        Ciphertext[] xy = refresher.refreshedPair(a, b, op);
        if (xy[0] != a || xy[1] != b) {
            return aligned(xy[0], xy[1], op);
        }
        // the larger scale onto the smaller one level lower (products not yet rescaled, at about Δ², included)
        int level = a.level() - 1;
        return a.scale() > b.scale()
                ? new Ciphertext[] {adjust(a, level, b.scale(), op), atLevel(b, level)}
                : new Ciphertext[] {atLevel(a, level), adjust(b, level, a.scale(), op)};
    }

    /**
     * Brings {@code c} to {@code level} (below its own) with exactly {@code target} scale: one level above the
     * target it is multiplied by 1 encoded at scale target·q/scale(c), so that rescaling by the prime q lands on
     * the target scale. The primes are learnt from the rescales done (scale before / scale after).
     */
    Ciphertext adjust(Ciphertext c, int level, double target, OperatorKind op) {
        return adjust(c, level, target, 1.0, op);
    }

    /** {@link #adjust} with the values multiplied by {@code factor} in the same product. */
    Ciphertext adjust(Ciphertext c, int level, double target, double factor, OperatorKind op) {
        Ciphertext x = atLevel(c, level + 1);
        double q = prime(x);
        // one value in every slot: a scalar product (no plaintext to encode, one scalar per limb)
        accounting.countMultiplication(MultiplicationKind.CONSTANT);
        Ciphertext raw = accounting.timed(
                op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplyConstant(x, factor, target * q / x.scale()));
        return rescaleExact(factor == 1 ? bounds.same(raw, c) : bounds.scaled(raw, c, factor), op);
    }

    /** The prime a rescale at {@code c}'s level divides by, learnt once per level. */
    private double prime(Ciphertext c) {
        double q = primes[c.level()];
        if (q == 0) {
            // A product by the constant 1 has a scale the rescale can divide: the ratio of the scales is the prime.
            Ciphertext p = evaluator.multiplyConstant(c, 1.0);
            q = p.scale() / evaluator.rescale(p).scale();
            primes[c.level()] = q;
        }
        return q;
    }

    /**
     * The scale to encode a constant or plaintext at so that its product with x, once rescaled, lands exactly on Δ:
     * Δ·q/scale(x), q the prime the rescale divides by (see {@link #commonProductScale}).
     */
    double onDeltaWith(Ciphertext x) {
        return commonProductScale(new Ciphertext[] {x}) / x.scale();
    }

    /**
     * The scale every product of a plaintext linear map over {@code xs} (at one level) is made to land on: Δ times
     * the prime the products' rescale divides by, so that the map's output is exactly on Δ. Operands refreshed by
     * different bootstraps (a pair's second comes back with its label off Δ) or rescaled by different primes differ
     * in scale; were their products summed as they are, each mismatch would be rescaled alone and, at the last level,
     * bootstrapped. Encoding each operand's weights at this scale over the operand's
     * ({@link EncryptedEngine#encodeForProduct})
     * gives every product the same scale for free. And outputs on Δ add without a level: the two branches of a
     * residual block (attention and MLP, each ending in a linear map at level 0) otherwise differ in scale, and
     * their sum was refreshed as two tensors where one suffices.
     */
    double commonProductScale(Ciphertext[] xs) {
        return scale * prime(xs[0]);
    }

    /** The ciphertexts with at least one level left, all brought to the lowest of their levels. */
    Ciphertext[] atCommonLevel(Ciphertext[] cts, OperatorKind op) {
        Ciphertext[] xs = new Ciphertext[cts.length];
        for (int j = 0; j < xs.length; j++) {
            xs[j] = refresher.withLevels(cts[j], 1, op);
        }
        int level = Arrays.stream(xs).mapToInt(Ciphertext::level).min().orElseThrow();
        for (int j = 0; j < xs.length; j++) {
            xs[j] = atLevel(xs[j], level);
        }
        return xs;
    }
}
