package dev.polyhe.api.he;

/**
 * Homomorphic operations. Operands must share parameters and key set; operands at different levels are
 * brought to the lower one, and operands whose scales differ beyond rounding are refused with both scales
 * in the message. Running out of levels is an {@link HeException}, never silent garbage.
 */
public interface Evaluator {
    Ciphertext add(Ciphertext a, Ciphertext b);

    Ciphertext sub(Ciphertext a, Ciphertext b);

    Ciphertext negate(Ciphertext a);

    Ciphertext addPlain(Ciphertext a, Plaintext b);

    Ciphertext addConstant(Ciphertext a, double c);

    /** ct·ct with relinearization; the result's scale is the product (call {@link #rescale}). */
    Ciphertext multiply(Ciphertext a, Ciphertext b);

    /**
     * {@code rescale(multiply(a, b))}, equal to it up to the rescale's rounding. A backend may fuse the two: hybrid
     * key switching divides by its special primes anyway, and dividing by them and the last prime at once saves the
     * rescale's transforms.
     */
    default Ciphertext multiplyAndRescale(Ciphertext a, Ciphertext b) {
        return rescale(multiply(a, b));
    }

    /** ct·pt; the result's scale is the product. */
    Ciphertext multiplyPlain(Ciphertext a, Plaintext b);

    /**
     * sum + a·b, not rescaled: a product added to a sum of products (a row of a matrix by the diagonal method).
     * {@code sum} must have the product's scale. The default multiplies, then adds; a backend may do both in one
     * pass over the limbs.
     */
    default Ciphertext multiplyPlainAndAdd(Ciphertext sum, Ciphertext a, Plaintext b) {
        return add(sum, multiplyPlain(a, b));
    }

    /** ct·c for a real constant, encoded at the scale of the prime the next rescale removes. */
    Ciphertext multiplyConstant(Ciphertext a, double c);

    /**
     * ct·c for a real constant encoded at {@code scale}: the result's scale is a's times it, so that a rescale by a
     * prime q lands it on scale(a)·scale/q, e.g. exactly on Δ with scale = Δ·q/scale(a). Backends that cannot choose
     * the constant's scale encode it at the prime, as {@link #multiplyConstant(Ciphertext, double)} does; callers
     * read the result's scale either way.
     */
    default Ciphertext multiplyConstant(Ciphertext a, double c, double scale) {
        return multiplyConstant(a, c);
    }

    /** ct·k for an integer: no scale change, no level. */
    Ciphertext multiplyInteger(Ciphertext a, long k);

    /** Divides by the last prime and drops it: one level. */
    Ciphertext rescale(Ciphertext a);

    /** Drops primes without rescaling until the ciphertext is at {@code level}. */
    Ciphertext dropToLevel(Ciphertext a, int level);

    /** Rotates slots left by {@code step} (negative: right). */
    Ciphertext rotate(Ciphertext a, int step);

    /** Several rotations of one ciphertext sharing one key-switching decomposition. */
    Ciphertext[] rotateHoisted(Ciphertext a, int[] steps);

    /**
     * Σ_i rot(xs[i], steps[i]): the giant steps of a baby-step giant-step product. Operands share level and scale.
     * A backend may sum the key switches before their one division by the special primes (Bossuat et al.'s second
     * hoisting); the default rotates each and adds.
     */
    default Ciphertext rotateSum(Ciphertext[] xs, int[] steps) {
        if (xs.length == 0 || xs.length != steps.length) {
            throw new IllegalArgumentException("rotateSum: " + xs.length + " ciphertexts and " + steps.length
                    + " steps; give one step per ciphertext, at least one");
        }
        Ciphertext sum = null;
        for (int i = 0; i < xs.length; i++) {
            Ciphertext r = steps[i] == 0 ? xs[i] : rotate(xs[i], steps[i]);
            sum = sum == null ? r : add(sum, r);
        }
        return sum;
    }

    /**
     * {@code rescale(rotateSum(xs, steps))}, equal to it up to the rescale's rounding: the giant steps of a product
     * whose terms were summed before their rescale. A backend may divide the summed key switches by its special
     * primes and the last prime at once, as {@link #multiplyAndRescale} does.
     */
    default Ciphertext rotateSumAndRescale(Ciphertext[] xs, int[] steps) {
        return rescale(rotateSum(xs, steps));
    }

    /** Complex conjugation of every slot. */
    Ciphertext conjugate(Ciphertext a);

    /** Refreshes levels (requires bootstrapping keys). */
    Ciphertext bootstrap(Ciphertext a);

    /**
     * Refreshes levels and multiplies the values by {@code factor}: how an engine scales values into the range
     * where bootstrapping is accurate and back. Backends fold the factor into the circuit's last constants (no
     * level); the default multiplies after the bootstrap, which costs one level.
     */
    default Ciphertext bootstrap(Ciphertext a, double factor) {
        Ciphertext b = bootstrap(a);
        return factor == 1 ? b : rescale(multiplyConstant(b, factor));
    }

    /**
     * Refreshes two ciphertexts of real slots at once. Backends may pack them as the real and imaginary parts of
     * one bootstrap (which refreshes complex slots anyway) and split the result by a conjugation; the default
     * bootstraps each.
     */
    default Ciphertext[] bootstrapPair(Ciphertext a, Ciphertext b) {
        return new Ciphertext[] {bootstrap(a), bootstrap(b)};
    }

    /** {@link #bootstrapPair(Ciphertext, Ciphertext)} with each result multiplied by its factor (see {@link #bootstrap(Ciphertext, double)}). */
    default Ciphertext[] bootstrapPair(Ciphertext a, Ciphertext b, double factorA, double factorB) {
        if (factorA == 1 && factorB == 1) {
            return bootstrapPair(a, b);
        }
        return new Ciphertext[] {bootstrap(a, factorA), bootstrap(b, factorB)};
    }

    /**
     * The independent operations this evaluator gains from being called with at once, from as many threads, each on
     * its own operands (the bootstraps of one tensor, say): 1, the default, where calls must not overlap or overlap
     * for nothing (a device that runs one operation at a time). An engine runs at most this many at once.
     */
    default int concurrency() {
        return 1;
    }
}
