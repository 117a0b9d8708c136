package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Plaintext;

/**
 * Cyclic row shifts within every segment of P slots, as {@link BlockAttention} masks them. Shifted by s, slot t of a
 * segment takes row t + s of the same segment where t + s &lt; P (c rotated by s) and row t + s − P otherwise (c
 * rotated by s − P): two rotations a shift, each masked to its rows.
 *
 * <p>Where the keys hold the conjugation, one rotation does: the source is z = c + i·rot(c, −P) (the product by i is
 * exact and takes no level), so rot(z, s) = rot(c, s) + i·rot(c, s − P), and the complex mask (direct − i·wrapped)/2
 * leaves (direct ⊙ rot(c, s) + wrapped ⊙ rot(c, s − P))/2 in the real part, the other products in the imaginary part.
 * Everything the attention does with a shifted operand until its result (products with real ciphertexts, rotations,
 * sums) keeps the real and imaginary parts apart, so {@link #real} takes the real part once, at the end: one
 * conjugation for a whole pass of P shifts, half of its rotations saved.
 */
final class RowShifts {
    private final LeveledOps ops;
    private final Rotations rotations;
    /** Whether shifts are complex-packed (the keys conjugate). */
    private final boolean complex;

    RowShifts(LeveledOps ops, Rotations rotations) {
        this.ops = ops;
        this.rotations = rotations;
        this.complex = rotations.conjugates();
    }

    /** What the shifts rotate: z = c + i·rot(c, −P) where complex, else c and rot(c, −P). */
    Ciphertext[] source(Ciphertext c, OperatorKind op) {
        return source(c, rotations.rotateSegments(c, -1, op), op);
    }

    /**
     * What the shifts rotate where the wrapped rows come from another ciphertext, already moved right by a segment:
     * {@code direct} + i·{@code wrapped} where complex, else the two.
     */
    Ciphertext[] source(Ciphertext direct, Ciphertext wrapped, OperatorKind op) {
        if (!complex) {
            return new Ciphertext[] {direct, wrapped};
        }
        return new Ciphertext[] {ops.add(direct, ops.timesImaginaryUnit(wrapped, op), op)};
    }

    /**
     * The masks of a shift at {@code level}: complex, the one mask (direct − i·wrapped)/2 ({@code direct} and
     * {@code wrapped} are the caller's to give up: it is made in them); else direct, and wrapped where not null.
     */
    Plaintext[] masks(double[] direct, double[] wrapped, int level, OperatorKind op) {
        if (complex) {
            double[] im = wrapped == null ? new double[direct.length] : wrapped;
            for (int k = 0; k < direct.length; k++) {
                direct[k] *= 0.5;
                im[k] *= -0.5;
            }
            return new Plaintext[] {ops.encodeComplex(direct, im, level, 0.5, op)};
        }
        Plaintext d = ops.encode(direct, direct.length, level, op);
        return wrapped == null
                ? new Plaintext[] {d}
                : new Plaintext[] {d, ops.encode(wrapped, wrapped.length, level, op)};
    }

    /**
     * {@link #masks} on a planning engine: masks of {@code width} entries of which only whether any is set is known
     * ({@code anyDirect}, {@code anyWrapped}), so that the bounds, and every decision after, are the real run's; no
     * array is made.
     */
    Plaintext[] masksSymbolic(int width, boolean anyDirect, boolean anyWrapped, int level, OperatorKind op) {
        if (complex) {
            return new Plaintext[] {ops.encodeSymbolic(width, level, 0.5, op)};
        }
        Plaintext d = ops.encodeSymbolic(width, level, anyDirect ? 1 : 0, op);
        return anyWrapped ? new Plaintext[] {d, ops.encodeSymbolic(width, level, 1, op)} : new Plaintext[] {d};
    }

    /**
     * {@code lo} (the source rotated by s) and {@code hi} (by s − P; null where split shifts have none) under the
     * masks of {@link #masks}: not rescaled; complex, halved in the real part ({@link #real}).
     */
    Ciphertext masked(Ciphertext lo, Ciphertext hi, Plaintext[] masks, OperatorKind op) {
        Ciphertext r = ops.plainProductRaw(lo, masks[0], op);
        if (!complex && masks.length > 1 && hi != null) {
            r = ops.add(r, ops.plainProductRaw(hi, masks[1], op), op);
        }
        return r;
    }

    /**
     * The shift by s of sources rotated by s ({@code rotated}: one for each of {@link #source}'s ciphertexts;
     * {@code first}: s = 0, where nothing wraps).
     */
    Shifted shifted(Ciphertext[] rotated, boolean first) {
        return complex ? new Shifted(rotated[0], null) : new Shifted(rotated[0], first ? null : rotated[1]);
    }

    /**
     * The result of a pass over shifted operands: its real part where the shifts were complex (the masks' halves
     * doubled back), else itself.
     */
    Ciphertext real(Ciphertext c, OperatorKind op) {
        return complex ? rotations.realPartTwice(c, op) : c;
    }

    /** One shift: the source rotated by s (and, split, by s − P; null for s = 0). */
    final class Shifted {
        private final Ciphertext lo;
        private final Ciphertext hi;

        private Shifted(Ciphertext lo, Ciphertext hi) {
            this.lo = lo;
            this.hi = hi;
        }

        /**
         * direct ⊙ (rows that do not wrap) + wrapped ⊙ (rows that do), {@code wrapped} null where no row wraps; not
         * rescaled. Complex: that, halved, in the real part ({@link #real}). The masks are the caller's to give up:
         * the complex mask (direct − i·wrapped)/2 is made in them.
         */
        Ciphertext masked(double[] direct, double[] wrapped, OperatorKind op) {
            // where the shift is split and has no wrapped rotation (s = 0), its wrapped mask is not encoded
            Plaintext[] m = masks(direct, complex || hi != null ? wrapped : null, lo.level(), op);
            return RowShifts.this.masked(lo, hi, m, op);
        }

        /**
         * {@link #masked} on a planning engine ({@link RowShifts#masksSymbolic}): no array of the slots' size (two
         * per product).
         */
        Ciphertext maskedSymbolic(int width, boolean anyDirect, boolean anyWrapped, OperatorKind op) {
            return RowShifts.this.masked(
                    lo, hi, masksSymbolic(width, anyDirect, anyWrapped && hi != null, lo.level(), op), op);
        }
    }
}
