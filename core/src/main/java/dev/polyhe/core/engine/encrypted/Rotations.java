package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * Rotations and sums of rotations, over the packing's P slots per column or segment: hoisted where one decomposition
 * serves several, and with the baby and giant steps of {@link Packing#rotationSteps} (or the segment steps of
 * {@link Packing#babyGiantSteps}) the keys hold. Every rotation is timed and counted.
 */
final class Rotations {
    private final LeveledOps ops;
    private final LevelsAndScales levels;
    private final Evaluator evaluator;
    private final EvaluationKeys keys;
    private final Accounting accounting;
    private final CiphertextBounds bounds;
    private final int slots;

    Rotations(
            LeveledOps ops,
            LevelsAndScales levels,
            Evaluator evaluator,
            EvaluationKeys keys,
            Accounting accounting,
            CiphertextBounds bounds,
            int slots) {
        this.ops = ops;
        this.levels = levels;
        this.evaluator = evaluator;
        this.keys = keys;
        this.accounting = accounting;
        this.bounds = bounds;
        this.slots = slots;
    }

    /** c rotated by each of {@code steps}, hoisted (one decomposition), every rotation counted. */
    Ciphertext[] hoisted(Ciphertext c, int[] steps, OperatorKind op) {
        long t0 = System.nanoTime();
        Ciphertext[] r = evaluator.rotateHoisted(c, steps);
        for (Ciphertext x : r) {
            bounds.same(x, c);
        }
        long each = (System.nanoTime() - t0) / Math.max(1, steps.length);
        for (int i = 0; i < steps.length; i++) {
            accounting.record(op, PrimitiveKind.ROTATION, each);
        }
        return r;
    }
    /**
     * c rotated by each of {@code steps} (slots), keyed by the step: the nonzero ones hoisted in one call (one
     * decomposition), a step 0 c itself.
     */
    Map<Integer, Ciphertext> hoistedBy(Ciphertext c, int[] steps, OperatorKind op) {
        int[] moving = Arrays.stream(steps).filter(s -> s != 0).distinct().toArray();
        Ciphertext[] rotated = moving.length == 0 ? new Ciphertext[0] : hoisted(c, moving, op);
        Map<Integer, Ciphertext> out = new HashMap<>();
        for (int i = 0; i < moving.length; i++) {
            out.put(moving[i], rotated[i]);
        }
        if (Arrays.stream(steps).anyMatch(s -> s == 0)) {
            out.put(0, c);
        }
        return out;
    }

    /** Whether the keys hold the conjugation (complex-packed row shifts in {@link BlockAttention} need it). */
    boolean conjugates() {
        return keys != null && keys.hasConjugation();
    }

    /**
     * {2·Re(z), 2·Im(z)} = {z + conj(z), i·(conj(z) − z)}: one key switch for both, no level (the product by i is the
     * exact monomial); bounds twice z's. Two real results carried as one complex ciphertext come apart here.
     */
    Ciphertext[] realAndImaginaryTwice(Ciphertext z, OperatorKind op) {
        Ciphertext conj = bounds.same(accounting.timed(op, PrimitiveKind.ROTATION, () -> evaluator.conjugate(z)), z);
        Ciphertext re = bounds.scaled(ops.add(z, conj, op), z, 2);
        Ciphertext im = bounds.scaled(ops.timesImaginaryUnit(ops.sub(conj, z, op), op), z, 2);
        return new Ciphertext[] {re, im};
    }

    /**
     * 2·Re(c) = c + conj(c): one key switch, no level; bound twice c's.
     */
    Ciphertext realPartTwice(Ciphertext c, OperatorKind op) {
        Ciphertext conj = bounds.same(accounting.timed(op, PrimitiveKind.ROTATION, () -> evaluator.conjugate(c)), c);
        return ops.add(c, conj, op);
    }

    /**
     * Σ rot(xs[i], steps[i]) (a step may be 0): the giant steps of a linear map. Where the parts share level and
     * scale (a map's partial sums do), their key switches share one division by the special primes
     * ({@link Evaluator#rotateSum}); otherwise each is rotated and added.
     */
    Ciphertext rotateSum(Ciphertext[] xs, int[] steps, OperatorKind op) {
        if (!sharesDivision(xs, steps)) {
            Ciphertext sum = null;
            for (int i = 0; i < xs.length; i++) {
                Ciphertext r = steps[i] == 0 ? xs[i] : hoisted(xs[i], new int[] {steps[i]}, op)[0];
                sum = sum == null ? r : ops.add(sum, r, op);
            }
            return sum;
        }
        return bounds.set(timedRotations(steps, op, () -> evaluator.rotateSum(xs, steps)), boundOfSum(xs));
    }
    /**
     * {@link #rotateSum} of products not yet rescaled, rescaled: the key switches' division by the special primes
     * and the rescale's by the last prime are one ({@link Evaluator#rotateSumAndRescale}), and the rotations' error,
     * added before the rescale, shrinks with it. Parts of different levels or scales rotate apart, then rescale.
     */
    Ciphertext rotateSumRescaled(Ciphertext[] xs, int[] steps, OperatorKind op) {
        if (!sharesDivision(xs, steps) || xs[0].level() == 0) {
            return levels.rescale(rotateSum(xs, steps, op), op);
        }
        Ciphertext r =
                bounds.set(timedRotations(steps, op, () -> evaluator.rotateSumAndRescale(xs, steps)), boundOfSum(xs));
        return levels.settled(levels.rescaled(xs[0].level(), xs[0].scale(), r), op);
    }
    /** Whether a rotate-sum's parts share level and scale (their key switches can share a division) and any moves. */
    private static boolean sharesDivision(Ciphertext[] xs, int[] steps) {
        boolean moved = false;
        for (int i = 0; i < xs.length; i++) {
            if (xs[i].level() != xs[0].level() || xs[i].scale() != xs[0].scale()) {
                return false;
            }
            moved |= steps[i] != 0;
        }
        return moved;
    }

    private double boundOfSum(Ciphertext[] xs) {
        double bound = 0;
        for (Ciphertext x : xs) {
            bound += bounds.of(x);
        }
        return bound;
    }
    /** A rotate-sum's time, shared among its rotations (steps not 0) in the accounting. */
    private Ciphertext timedRotations(int[] steps, OperatorKind op, Supplier<Ciphertext> work) {
        long t0 = System.nanoTime();
        Ciphertext r = work.get();
        long moved = Arrays.stream(steps).filter(s -> s != 0).count();
        long each = (System.nanoTime() - t0) / moved;
        for (int i = 0; i < moved; i++) {
            accounting.record(op, PrimitiveKind.ROTATION, each);
        }
        return r;
    }
    /**
     * c rotated by 1 .. P−1 (element s−1 is the rotation by s) with the keys of {@link Packing#rotationSteps}:
     * the
     * giant steps hoisted on c, then the baby steps hoisted on each giant rotation. P−1 key switches, as many as
     * rotating by every step directly, with one decomposition per giant step instead of one in all.
     */
    Ciphertext[] everyRotation(Ciphertext c, OperatorKind op) {
        int b = Packing.babyStep(slots);
        int[] giants = new int[(slots - 1) / b];
        for (int g = 1; g <= giants.length; g++) {
            giants[g - 1] = g * b;
        }
        Ciphertext[] out = new Ciphertext[slots - 1];
        Ciphertext[] giant = giants.length == 0 ? new Ciphertext[0] : hoisted(c, giants, op);
        for (int g = 0; g <= giants.length; g++) {
            Ciphertext[] baby = babyRotations(g == 0 ? c : giant[g - 1], op);
            for (int a = 0; a < baby.length && g * b + a < slots; a++) {
                if (g * b + a > 0) {
                    out[g * b + a - 1] = baby[a];
                }
            }
        }
        return out;
    }
    /**
     * {@code base} and its rotations by the baby steps 1 .. b−1 of {@link Packing#rotationSteps}, hoisted (one
     * decomposition): element a is the rotation by a.
     */
    Ciphertext[] babyRotations(Ciphertext base, OperatorKind op) {
        int b = Math.min(Packing.babyStep(slots), slots);
        Ciphertext[] out = new Ciphertext[b];
        out[0] = base;
        if (b > 1) {
            int[] steps = IntStream.range(1, b).toArray();
            System.arraycopy(hoisted(base, steps, op), 0, out, 1, b - 1);
        }
        return out;
    }
    /**
     * c rotated by s (0 < s < P): a giant step, then a baby step, each a key of {@link Packing#rotationSteps}.
     */
    Ciphertext rotateBy(Ciphertext c, int s, OperatorKind op) {
        int b = Packing.babyStep(slots);
        Ciphertext r = c;
        if (s / b > 0) {
            r = hoisted(r, new int[] {s / b * b}, op)[0];
        }
        if (s % b > 0) {
            r = hoisted(r, new int[] {s % b}, op)[0];
        }
        return r;
    }
    /**
     * Whether the keys rotate ciphertexts of {@code width} slots by j·step for every j &lt; count (a key whose step
     * is congruent modulo the width serves): layouts whose keys are only the powers of two (row sums of score
     * diagonals) add one by one instead.
     */
    private boolean hasRotations(int width, int step, int count) {
        if (keys == null) {
            return false;
        }
        Set<Integer> held = keys.rotationSteps();
        for (int j = 1; j < count; j++) {
            int s = Math.floorMod(j * step, width);
            if (!held.contains(s) && held.stream().noneMatch(h -> Math.floorMod(h, width) == s)) {
                return false;
            }
        }
        return true;
    }
    /**
     * The sum over n neighbouring groups of P slots (n a power of two): each group ends up holding the sum of all
     * n (see {@link #sumOverNeighbours(Ciphertext, int, int, OperatorKind)}).
     */
    Ciphertext sumOverNeighbours(Ciphertext c, int n, OperatorKind op) {
        return sumOverNeighbours(c, n, 1, op);
    }
    /**
     * Segment i gets the sum of segments i, i + step, …, i + n − step (n and step powers of two). Where the keys
     * of {@link #rotateSegments} allow (a·P for a &lt; b, multiples of b·P), radix-R stages: Σ_{j&lt;R} rot(r, j·k·P)
     * is R − 1 rotations of one ciphertext sharing one decomposition and one division by P ({@link #rotateSum}),
     * two stages for n up to b², cheaper than the log2(n/step) rotations of rotate-and-add one after another
     * (each a whole key switch: the next one waits for its division by P).
     */
    Ciphertext sumOverNeighbours(Ciphertext c, int n, int step, OperatorKind op) {
        int segments = c.slots() / slots;
        int b = Packing.babyStep(segments);
        Ciphertext r = c;
        for (int k = step; k < n; ) {
            int radix = n > segments ? 2 : k < b ? Math.min(b / k, n / k) : n / k;
            if (radix > 2 && !hasRotations(c.slots(), k * slots, radix)) {
                radix = 2;
            }
            if (radix == 2) {
                r = ops.add(r, hoisted(r, new int[] {k * slots}, op)[0], op);
            } else {
                Ciphertext[] same = new Ciphertext[radix];
                int[] steps = new int[radix];
                for (int j = 0; j < radix; j++) {
                    same[j] = r;
                    steps[j] = j * k * slots;
                }
                r = rotateSum(same, steps, op);
            }
            k *= radix;
        }
        return r;
    }
    /**
     * c rotated left by n segments of P slots (n taken modulo the segments c spans; negative n rotates right) with
     * the keys of {@link Packing#babyGiantSteps}: a giant step, then a baby step, at most two rotations.
     */
    Ciphertext rotateSegments(Ciphertext c, int n, OperatorKind op) {
        SegmentStep step = SegmentStep.of(n, c.slots() / slots);
        Ciphertext r = c;
        if (step.giant() > 0) {
            r = hoisted(r, new int[] {step.giant() * slots}, op)[0];
        }
        if (step.baby() > 0) {
            r = hoisted(r, new int[] {step.baby() * slots}, op)[0];
        }
        return r;
    }
}
