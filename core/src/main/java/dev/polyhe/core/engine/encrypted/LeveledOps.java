package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.core.engine.encrypted.Accounting.MultiplicationKind;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * The leveled operations on ciphertexts, as the engine's tensors use them: sums, ciphertext, constant and plaintext
 * products and plaintext encodings, each timed and counted, its operands given the levels it needs
 * ({@link Refresher}) at one level and scale ({@link LevelsAndScales}), its result's bound tracked.
 */
final class LeveledOps {
    private final Evaluator evaluator;
    private final Encoder encoder;
    private final Accounting accounting;
    private final CiphertextBounds bounds;
    private final Refresher refresher;
    private final LevelsAndScales levels;
    private final double scale;
    private WeightCache weights;

    LeveledOps(
            Evaluator evaluator,
            Encoder encoder,
            Accounting accounting,
            CiphertextBounds bounds,
            Refresher refresher,
            LevelsAndScales levels,
            double scale) {
        this.evaluator = evaluator;
        this.encoder = encoder;
        this.accounting = accounting;
        this.bounds = bounds;
        this.refresher = refresher;
        this.levels = levels;
        this.scale = scale;
    }

    /** See {@link EncryptedEngine#useWeightCache}. */
    void useWeightCache(WeightCache cache) {
        this.weights = cache;
    }

    private <R> R timed(OperatorKind op, PrimitiveKind prim, Supplier<R> work) {
        return accounting.timed(op, prim, work);
    }

    /** An encoding, timed and counted with its limbs. */
    private Plaintext encoding(OperatorKind op, int level, Supplier<Plaintext> work) {
        accounting.encoded(level);
        return timed(op, PrimitiveKind.ENCODE, work);
    }

    Ciphertext add(Ciphertext a, Ciphertext b, OperatorKind op) {
        Ciphertext[] ab = levels.aligned(a, b, op);
        return bounds.set(timed(op, PrimitiveKind.ADD, () -> evaluator.add(ab[0], ab[1])), bounds.of(a) + bounds.of(b));
    }

    Ciphertext sub(Ciphertext a, Ciphertext b, OperatorKind op) {
        Ciphertext[] ab = levels.aligned(a, b, op);
        return bounds.set(timed(op, PrimitiveKind.ADD, () -> evaluator.sub(ab[0], ab[1])), bounds.of(a) + bounds.of(b));
    }
    /** ct·ct with relinearization, not rescaled (so sums of products rescale once). */
    Ciphertext productRaw(Ciphertext a, Ciphertext b, OperatorKind op) {
        double bound = bounds.of(a) * bounds.of(b);
        Ciphertext[] xy = productOperands(a, b, op);
        return bounds.set(timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiply(xy[0], xy[1])), bound);
    }
    /**
     * Σ as[i]·bs[i] with one relinearization ({@link Evaluator#multiplySum}), not rescaled: a sum of products that
     * only meet in the sum, one key switch instead of one each.
     */
    Ciphertext productSumRaw(Ciphertext[] as, Ciphertext[] bs, OperatorKind op) {
        double bound = 0;
        Ciphertext[] xs = new Ciphertext[as.length];
        Ciphertext[] ys = new Ciphertext[bs.length];
        for (int i = 0; i < as.length; i++) {
            bound += bounds.of(as[i]) * bounds.of(bs[i]);
            Ciphertext[] xy = productOperands(as[i], bs[i], op);
            xs[i] = xy[0];
            ys[i] = xy[1];
        }
        accounting.relinearizationsSaved(as.length - 1);
        return bounds.set(timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplySum(xs, ys)), bound);
    }

    /** a and b with the levels a product needs (bootstrapped where short), at their common level; counted. */
    private Ciphertext[] productOperands(Ciphertext a, Ciphertext b, OperatorKind op) {
        Ciphertext x = refresher.withLevels(a, refresher.levelsFor(a), op);
        // a square bootstraps its operand once
        Ciphertext y = b == a ? x : refresher.withLevels(b, refresher.levelsFor(b), op);
        int level = Math.min(x.level(), y.level());
        accounting.countMultiplication(MultiplicationKind.CIPHERTEXT);
        return new Ciphertext[] {levels.atLevel(x, level), levels.atLevel(y, level)};
    }
    /**
     * ct·ct rescaled: {@link #productRaw} and {@link LevelsAndScales#rescale} with the backend's relinearization and
     * rescale fused
     * ({@link Evaluator#multiplyAndRescale}: one division by its special primes and the last prime).
     */
    Ciphertext product(Ciphertext a, Ciphertext b, OperatorKind op) {
        double bound = bounds.of(a) * bounds.of(b);
        Ciphertext[] xy = productOperands(a, b, op); // at level 1 or above: withLevels leaves a level or fails
        Ciphertext r =
                bounds.set(timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplyAndRescale(xy[0], xy[1])), bound);
        return levels.settled(levels.rescaled(xy[0].level(), xy[0].scale() * xy[1].scale(), r), op);
    }
    /** ct·c: integers cost nothing; a real constant costs one level (encoded at the prime the rescale removes). */
    Ciphertext constantProduct(Ciphertext a, double c, OperatorKind op) {
        if (c == Math.rint(c) && Math.abs(c) < 0x1p52) {
            return bounds.scaled(timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplyInteger(a, (long) c)), a, c);
        }
        Ciphertext x = refresher.withLevels(a, refresher.levelsFor(a), op);
        accounting.countMultiplication(MultiplicationKind.CONSTANT);
        // on Δ, the terms of a linear combination (a polynomial's baby steps, each off Δ by its own primes) add at one
        // scale, where aligning two scales at one level costs a level
        double at = levels.onDeltaWith(x);
        return levels.rescale(
                bounds.scaled(timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplyConstant(x, c, at)), x, c), op);
    }
    /** Values encoded at Δ and {@code level}, their bound noted. */
    Plaintext encode(double[] values, int width, int level, OperatorKind op) {
        return encode(values, width, level, scale, op);
    }

    /**
     * {@link #encode} on a planning engine ({@link EncryptedEngine#valuesIgnored}): {@code width} values of which only
     * the largest magnitude, {@code maxAbs}, is known (a mask's), as its bound; no array is made.
     */
    Plaintext encodeSymbolic(int width, int level, double maxAbs, OperatorKind op) {
        return bounds.set(encoding(op, level, () -> encoder.encode(new double[0], width, level, scale)), maxAbs);
    }

    private Plaintext encode(double[] values, int width, int level, double at, OperatorKind op) {
        return bounds.set(encoding(op, level, () -> encoder.encode(values, width, level, at)), values);
    }
    /**
     * Weights for a product with {@code operand} that lands on {@code productScale} (see
     * {@link LevelsAndScales#commonProductScale}).
     */
    Plaintext encodeForProduct(double[] values, int width, Ciphertext operand, double productScale, OperatorKind op) {
        double at = productScale / operand.scale();
        return bounds.set(
                weightPlaintext(
                        values,
                        width,
                        operand.level(),
                        at,
                        () -> encoder.encode(values, width, operand.level(), at),
                        op),
                values);
    }
    /**
     * {@link #encodeForProduct} for complex weights re + i·im (two real maps' weights in one plaintext, see
     * {@link BlockLinear#onBlocks}), bounded by {@link #complexBound}. {@code values} is re followed by im: the
     * weight cache's key, which a real encode of {@code width} values cannot take.
     */
    Plaintext encodeComplexForProduct(
            double[] values, int width, Ciphertext operand, double productScale, OperatorKind op) {
        double[] re = Arrays.copyOf(values, width);
        double[] im = Arrays.copyOfRange(values, width, 2 * width);
        double bound = complexBound(maxAbs(re), maxAbs(im));
        double at = productScale / operand.scale();
        return bounds.set(
                weightPlaintext(
                        values,
                        width,
                        operand.level(),
                        at,
                        () -> encoder.encodeComplex(re, im, width, operand.level(), at),
                        op),
                bound);
    }

    /**
     * The weights {@code encode} makes, from {@code serve}'s weight cache where there is one ({@code values} its key,
     * each lookup counted), else encoded now.
     */
    private Plaintext weightPlaintext(
            double[] values, int width, int level, double at, Supplier<Plaintext> encode, OperatorKind op) {
        if (weights == null) {
            return encoding(op, level, encode);
        }
        boolean[] encoded = {false};
        Plaintext p = weights.get(values, width, level, at, () -> {
            encoded[0] = true;
            return encoding(op, level, encode);
        });
        accounting.countWeightLookup(weights, !encoded[0]);
        return p;
    }

    /**
     * A bound on |re + i·im| from the parts' largest magnitudes (√2 times the larger), the same on a planning
     * engine, which knows only those.
     */
    static double complexBound(double maxRe, double maxIm) {
        return Math.max(maxRe, maxIm) * Math.sqrt(2);
    }

    /**
     * {@link #encodeForProduct} on a planning engine ({@link EncryptedEngine#valuesIgnored}): no values, only their
     * largest
     * magnitude, which the bounds (and so the bootstrap decisions) follow.
     */
    Plaintext encodeForProductSymbolic(
            double maxAbs, int width, Ciphertext operand, double productScale, OperatorKind op) {
        double at = productScale / operand.scale();
        return bounds.set(
                encoding(op, operand.level(), () -> encoder.encode(new double[0], width, operand.level(), at)), maxAbs);
    }
    /**
     * Complex values re + i·im encoded at Δ and {@code level}, of magnitude at most {@code bound} where they meet
     * the values that matter (see {@link BlockAttention}'s row shifts).
     */
    Plaintext encodeComplex(double[] re, double[] im, int level, double bound, OperatorKind op) {
        return bounds.set(encoding(op, level, () -> encoder.encodeComplex(re, im, re.length, level, scale)), bound);
    }

    /**
     * i·c: a product by i at scale 1, which encodes exactly as the monomial X^(N/2), so it takes no level and adds no
     * error. Bound 0, as i·c of a real c has no real part: a complex mask that brings its imaginary part back into
     * the real part bounds what it brings ({@link #encodeComplex}).
     */
    Ciphertext timesImaginaryUnit(Ciphertext c, OperatorKind op) {
        double[] zero = new double[c.slots()];
        double[] one = new double[c.slots()];
        Arrays.fill(one, 1.0);
        Plaintext i = encoding(op, c.level(), () -> encoder.encodeComplex(zero, one, c.slots(), c.level(), 1.0));
        accounting.countMultiplication(MultiplicationKind.PLAINTEXT);
        return bounds.set(timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplyPlain(c, i)), 0);
    }

    /** ct·pt with {@code values} one per slot of the ciphertext. */
    Ciphertext plainProduct(Ciphertext a, double[] values, OperatorKind op) {
        double bound = bounds.of(a) * maxAbs(values);
        Ciphertext x = refresher.withLevels(a, refresher.levelsFor(a), op);
        Plaintext p = encode(values, values.length, x.level(), levels.onDeltaWith(x), op);
        accounting.countMultiplication(MultiplicationKind.PLAINTEXT);
        Ciphertext raw = timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplyPlain(x, p));
        return levels.rescale(bounds.set(raw, bound), op);
    }

    static double maxAbs(double[] values) {
        double m = 0;
        for (double v : values) {
            m = Math.max(m, Math.abs(v));
        }
        return m;
    }
    /** ct·pt, not rescaled (sums of products rescale once). */
    Ciphertext plainProductRaw(Ciphertext x, Plaintext p, OperatorKind op) {
        accounting.countMultiplication(MultiplicationKind.PLAINTEXT);
        return bounds.set(
                timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplyPlain(x, p)), bounds.of(x) * bounds.of(p));
    }
    /**
     * sum + Σ xs[i]·ps[i], not rescaled, in one backend call ({@link Evaluator#multiplyPlainSum}); sum may be null:
     * the terms of a sum of products at one level and scale ({@link ProductSum#addPlainProduct}).
     */
    Ciphertext plainProductsAdded(Ciphertext sum, Ciphertext[] xs, Plaintext[] ps, OperatorKind op) {
        double bound = sum == null ? 0 : bounds.of(sum);
        for (int i = 0; i < xs.length; i++) {
            accounting.countMultiplication(MultiplicationKind.PLAINTEXT);
            bound += bounds.of(xs[i]) * bounds.of(ps[i]);
        }
        return bounds.set(timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplyPlainSum(sum, xs, ps)), bound);
    }
    /** A zero at the scale ({@code productScale}) and level the products of a linear map over {@code like} have. */
    Ciphertext zeroProduct(Ciphertext like, double productScale, OperatorKind op) {
        accounting.countMultiplication(MultiplicationKind.CONSTANT);
        double at = productScale / like.scale();
        return bounds.set(timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplyConstant(like, 0.0, at)), 0);
    }
    /** c plus {@code values} (one per slot), encoded at c's level and scale: no level. */
    Ciphertext plainSum(Ciphertext c, double[] values, OperatorKind op) {
        Plaintext p = encoding(op, c.level(), () -> encoder.encode(values, values.length, c.level(), c.scale()));
        return bounds.set(timed(op, PrimitiveKind.ADD, () -> evaluator.addPlain(c, p)), bounds.of(c) + maxAbs(values));
    }
}
