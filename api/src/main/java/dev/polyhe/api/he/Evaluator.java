package dev.polyhe.api.he;

/**
 * Homomorphic operations. Operands must share parameters and key set; operands at different levels are
 * brought to the lower one, and operands whose scales differ beyond rounding are refused with both scales
 * in the message. Running out of levels is an {@link HeException}, never silent garbage.
 */
public interface Evaluator {
    /**
     * a + b, slot by slot.
     *
     * @param a an operand
     * @param b an operand of the same key set and scale
     * @return a new ciphertext at the lower of the two levels
     * @throws HeException when the operands come from different parameters or key sets, or their scales differ
     */
    Ciphertext add(Ciphertext a, Ciphertext b);

    /**
     * a − b, slot by slot.
     *
     * @param a the minuend
     * @param b the subtrahend, of the same key set and scale
     * @return a new ciphertext at the lower of the two levels
     * @throws HeException as {@link #add}
     */
    Ciphertext sub(Ciphertext a, Ciphertext b);

    /**
     * −a.
     *
     * @param a the operand
     * @return a new ciphertext at a's level and scale
     */
    Ciphertext negate(Ciphertext a);

    /**
     * a + b for a plaintext encoded at a's level and scale.
     *
     * @param a the ciphertext
     * @param b the plaintext
     * @return a new ciphertext at a's level and scale
     * @throws HeException when b's level or scale does not match a's
     */
    Ciphertext addPlain(Ciphertext a, Plaintext b);

    /**
     * a + c in every slot.
     *
     * @param a the ciphertext
     * @param c the real constant
     * @return a new ciphertext at a's level and scale
     */
    Ciphertext addConstant(Ciphertext a, double c);

    /**
     * ct·ct with relinearization; the result's scale is the product (call {@link #rescale}).
     *
     * @param a an operand
     * @param b an operand of the same key set
     * @return the relinearized product, at the lower level, of scale scale(a)·scale(b)
     * @throws HeException when the key set has no relinearization key, or the operands do not match
     */
    Ciphertext multiply(Ciphertext a, Ciphertext b);

    /**
     * Σ as[i]·bs[i] relinearized once (API 1.1): the tensor products summed, then one key switch where the default
     * relinearizes every product. The products must share one scale; the sum is at the lowest level among them.
     *
     * @param as the left operands
     * @param bs the right operands, as many as {@code as}, of the same key set
     * @return the relinearized sum of products, of scale scale(as[0])·scale(bs[0]), not rescaled
     * @throws HeException as {@link #multiply}, or when the products' scales differ
     * @throws IllegalArgumentException when the arrays are empty or of different lengths
     */
    default Ciphertext multiplySum(Ciphertext[] as, Ciphertext[] bs) {
        if (as.length == 0 || as.length != bs.length) {
            throw new IllegalArgumentException(
                    "multiplySum: " + as.length + " left and " + bs.length + " right operands; expected as many, > 0");
        }
        Ciphertext sum = multiply(as[0], bs[0]);
        for (int i = 1; i < as.length; i++) {
            sum = add(sum, multiply(as[i], bs[i]));
        }
        return sum;
    }

    /**
     * {@code rescale(multiply(a, b))}, equal to it up to the rescale's rounding. A backend may fuse the two: hybrid
     * key switching divides by its special primes anyway, and dividing by them and the last prime at once saves the
     * rescale's transforms.
     *
     * @param a an operand
     * @param b an operand of the same key set
     * @return the product, one level below the operands
     * @throws HeException as {@link #multiply} and {@link #rescale}
     */
    default Ciphertext multiplyAndRescale(Ciphertext a, Ciphertext b) {
        return rescale(multiply(a, b));
    }

    /**
     * ct·pt; the result's scale is the product.
     *
     * @param a the ciphertext
     * @param b a plaintext encoded at a's level
     * @return the product, not rescaled
     */
    Ciphertext multiplyPlain(Ciphertext a, Plaintext b);

    /**
     * sum + a·b, not rescaled: a product added to a sum of products (a row of a matrix by the diagonal method).
     * {@code sum} must have the product's scale. The default multiplies, then adds; a backend may do both in one
     * pass over the limbs.
     *
     * @param sum the running sum, of the product's scale
     * @param a the ciphertext
     * @param b the plaintext
     * @return sum + a·b, not rescaled
     */
    default Ciphertext multiplyPlainAndAdd(Ciphertext sum, Ciphertext a, Plaintext b) {
        return add(sum, multiplyPlain(a, b));
    }

    /**
     * sum + Σ as[i]·bs[i], not rescaled: many terms of a row of a matrix product in one call. The default adds the
     * products one by one; a backend may make one pass over each limb for all of them, reading the running sum once
     * instead of once a term.
     *
     * @param sum the running sum, of the products' scale, or null for none
     * @param as the ciphertexts
     * @param bs the plaintexts, as many as {@code as}
     * @return the sum, at the lowest level among the operands, not rescaled
     * @throws HeException as {@link #multiplyPlainAndAdd}, or when the products' scales differ
     * @throws IllegalArgumentException when the arrays are empty or of different lengths
     */
    default Ciphertext multiplyPlainSum(Ciphertext sum, Ciphertext[] as, Plaintext[] bs) {
        if (as.length == 0 || as.length != bs.length) {
            throw new IllegalArgumentException("multiplyPlainSum: " + as.length + " ciphertexts and " + bs.length
                    + " plaintexts; expected as many, > 0");
        }
        Ciphertext s = sum;
        for (int i = 0; i < as.length; i++) {
            s = s == null ? multiplyPlain(as[i], bs[i]) : multiplyPlainAndAdd(s, as[i], bs[i]);
        }
        return s;
    }

    /**
     * ct·c for a real constant, encoded at the scale of the prime the next rescale removes.
     *
     * @param a the ciphertext, with a level left for the rescale that follows
     * @param c the real constant
     * @return the product, not rescaled
     */
    Ciphertext multiplyConstant(Ciphertext a, double c);

    /**
     * ct·c for a real constant encoded at {@code scale}: the result's scale is a's times it, so that a rescale by a
     * prime q lands it on scale(a)·scale/q, e.g. exactly on Δ with scale = Δ·q/scale(a). Backends that cannot choose
     * the constant's scale encode it at the prime, as {@link #multiplyConstant(Ciphertext, double)} does; callers
     * read the result's scale either way.
     *
     * @param a the ciphertext
     * @param c the real constant
     * @param scale the scale to encode c at
     * @return the product, not rescaled
     */
    default Ciphertext multiplyConstant(Ciphertext a, double c, double scale) {
        return multiplyConstant(a, c);
    }

    /**
     * ct·k for an integer: no scale change, no level.
     *
     * @param a the ciphertext
     * @param k the integer
     * @return a new ciphertext at a's level and scale
     */
    Ciphertext multiplyInteger(Ciphertext a, long k);

    /**
     * Divides by the last prime and drops it: one level.
     *
     * @param a the ciphertext
     * @return a one level lower, its scale divided by the prime
     * @throws HeException when a is at level 0
     */
    Ciphertext rescale(Ciphertext a);

    /**
     * Drops primes without rescaling until the ciphertext is at {@code level}.
     *
     * @param a the ciphertext
     * @param level the level wanted, at most a's
     * @return a at that level, its scale unchanged
     * @throws HeException when {@code level} is above a's level or below 0
     */
    Ciphertext dropToLevel(Ciphertext a, int level);

    /**
     * Rotates slots left by {@code step} (negative: right).
     *
     * @param a the ciphertext
     * @param step the rotation, taken modulo the slot count
     * @return the rotated ciphertext at a's level and scale
     * @throws HeException naming the step when the keys have no rotation key for it (and no secret key was given
     *         to generate it)
     */
    Ciphertext rotate(Ciphertext a, int step);

    /**
     * Several rotations of one ciphertext sharing one key-switching decomposition.
     *
     * @param a the ciphertext
     * @param steps the rotations
     * @return one rotated ciphertext per step, in order
     * @throws HeException as {@link #rotate}
     */
    Ciphertext[] rotateHoisted(Ciphertext a, int[] steps);

    /**
     * Σ_i rot(xs[i], steps[i]): the giant steps of a baby-step giant-step product. Operands share level and scale.
     * A backend may sum the key switches before their one division by the special primes (Bossuat et al.'s second
     * hoisting); the default rotates each and adds.
     *
     * @param xs the ciphertexts
     * @param steps one rotation per ciphertext
     * @return the sum of the rotated ciphertexts
     * @throws IllegalArgumentException when the arrays are empty or of different lengths
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
     *
     * @param xs the ciphertexts
     * @param steps one rotation per ciphertext
     * @return the sum, one level lower
     */
    default Ciphertext rotateSumAndRescale(Ciphertext[] xs, int[] steps) {
        return rescale(rotateSum(xs, steps));
    }

    /**
     * Complex conjugation of every slot.
     *
     * @param a the ciphertext
     * @return its conjugate
     * @throws HeException when the keys have no conjugation key
     */
    Ciphertext conjugate(Ciphertext a);

    /**
     * Refreshes levels (requires bootstrapping keys).
     *
     * @param a the ciphertext, its values well within q_0/Δ
     * @return a at the levels a bootstrap leaves
     * @throws HeException when the keys cannot bootstrap a's slot count
     */
    Ciphertext bootstrap(Ciphertext a);

    /**
     * Refreshes levels and multiplies the values by {@code factor}: how an engine scales values into the range
     * where bootstrapping is accurate and back. Backends fold the factor into the circuit's last constants (no
     * level); the default multiplies after the bootstrap, which costs one level.
     *
     * @param a the ciphertext
     * @param factor what the refreshed values are multiplied by
     * @return a·factor, refreshed
     */
    default Ciphertext bootstrap(Ciphertext a, double factor) {
        Ciphertext b = bootstrap(a);
        return factor == 1 ? b : rescale(multiplyConstant(b, factor));
    }

    /**
     * Refreshes two ciphertexts of real slots at once. Backends may pack them as the real and imaginary parts of
     * one bootstrap (which refreshes complex slots anyway) and split the result by a conjugation; the default
     * bootstraps each.
     *
     * @param a a ciphertext of real slots
     * @param b another, of the same slot count
     * @return both refreshed, in order
     */
    default Ciphertext[] bootstrapPair(Ciphertext a, Ciphertext b) {
        return new Ciphertext[] {bootstrap(a), bootstrap(b)};
    }

    /**
     * {@link #bootstrapPair(Ciphertext, Ciphertext)} with each result multiplied by its factor (see
     * {@link #bootstrap(Ciphertext, double)}).
     *
     * @param a a ciphertext of real slots
     * @param b another, of the same slot count
     * @param factorA a's factor
     * @param factorB b's factor
     * @return a·factorA and b·factorB, refreshed
     */
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
     *
     * @return at least 1
     */
    default int concurrency() {
        return 1;
    }
}
