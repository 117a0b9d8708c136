package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.ckks.scheme.SchemeParameters;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The homomorphic special DFT: bitrev(w) in the slots becomes the slots z. Every group but the last keeps the
 * scale (diagonals at the prime's scale); the last group's diagonals are encoded at Δ·q_l / scale so that the
 * result comes out at the requested scale Δ exactly, with the constant c folded in: its coefficients hold the
 * multiplier c·Δ/scale, whatever Δ. The bootstraps of one run differ in that multiplier by powers of two (the
 * engine's prescaling factors 2^-k, a pair's 1/4, a precise bootstrap's correction 2^-t) and in Δ by drift, so the
 * group is encoded at up to 2^-{@link #SPARE_BITS} of a multiplier, and one up to that many times it multiplies the
 * ciphertext by the power of two instead (an integer product: exact, no level) and reads the result at its own Δ:
 * the group's diagonals are not encoded again (0.2–0.3 s at N = 2^16, 11 times in 12 bootstraps of a
 * Pythia-70M-shaped layer before).
 */
final class SlotsToCoeffs {
    private final SchemeParameters params;
    private final int startLevel;
    private final List<DiagonalMatrix> groups;
    private final List<LinearTransform> leading = new ArrayList<>();
    /**
     * Bits a last group's encoding spares for larger multipliers, at most: a precise bootstrap's first and second
     * (2^-t apart, t up to about 17) then share one encoding.
     */
    static final int SPARE_BITS = 20;

    /**
     * Bits the encoding's largest coefficients keep at least (a relative rounding of 2^-30, far below a bootstrap's
     * 2^-20): a factor-1 bootstrap's have about 49 at N16-boot-128, so it spares 19; small multipliers spare fewer.
     */
    static final int MIN_COEFFICIENT_BITS = 30;

    /** Multipliers this close (relative) share an encoding: the difference is below the coefficients' rounding. */
    private static final double SAME_MULTIPLIER = 0x1p-40;

    /**
     * The last group for the most recent input scale and mantissa of the multiplier c·Δ/scale (what its
     * coefficients hold, whatever Δ), encoded at that mantissa times 2^exponent: one entry, so drifting scales cannot
     * pile up.
     */
    private volatile Last last;

    private record Last(double inputScale, double mantissa, int exponent, LinearTransform transform) {
        boolean serves(double scale, double m, int e) {
            return scale == inputScale
                    && Math.abs(m - mantissa) <= SAME_MULTIPLIER * mantissa
                    && e >= exponent
                    && e - exponent <= SPARE_BITS;
        }
    }

    /** The largest entry of the last group's diagonals (about its coefficients' size at scale 1). */
    private final double lastLargest;

    SlotsToCoeffs(SchemeParameters params, CiphertextLimbs limbs, int slots, int levels, boolean packed, int level) {
        this.params = params;
        this.startLevel = level;
        this.groups = matrices(slots, levels, packed);
        double largest = 0;
        for (double[][] d : groups.get(groups.size() - 1).diagonals().values()) {
            for (double[] part : d) {
                for (double x : part) {
                    largest = Math.max(largest, Math.abs(x));
                }
            }
        }
        this.lastLargest = largest;
        for (int i = 0; i < groups.size() - 1; i++) {
            leading.add(new LinearTransform(groups.get(i), limbs, level - i, params.q(level - i)));
        }
    }

    int levels() {
        return groups.size();
    }

    /**
     * c·DFT(ct), rescaled to {@code outputScale} by {@code limbs} (which also encodes a new last group); {@code ev}
     * multiplies by the power of two between the multiplier and the last group's.
     */
    Ciphertext apply(Evaluator ev, CiphertextLimbs limbs, Ciphertext ct, double constant, double outputScale) {
        for (LinearTransform t : leading) {
            ct = t.applyAndRescale(limbs, ct);
        }
        int level = startLevel - leading.size();
        double inputScale = ct.scale();
        double multiplier = constant * outputScale / inputScale;
        int exponent = Math.getExponent(multiplier);
        double mantissa = Math.scalb(multiplier, -exponent);
        Last l = last;
        if (l == null || !l.serves(inputScale, mantissa, exponent)) {
            double bits = Math.log(multiplier * params.q(level) * lastLargest) / Math.log(2);
            int spare = (int) Math.max(0, Math.min(SPARE_BITS, Math.floor(bits - MIN_COEFFICIENT_BITS)));
            l = new Last(
                    inputScale,
                    mantissa,
                    exponent - spare,
                    new LinearTransform(
                            groups.get(groups.size() - 1).scaled(Math.scalb(constant, -spare)),
                            limbs,
                            level,
                            outputScale * params.q(level) / inputScale));
            last = l;
        }
        if (exponent > l.exponent()) {
            ct = ev.multiplyInteger(ct, 1L << (exponent - l.exponent()));
        }
        Ciphertext out = l.transform().applyAndRescale(limbs, ct);
        // the limbs hold c·DFT at outputScale: the group's own scale arithmetic differs where Δ drifted since, and
        // by a rounding where it did not
        return out.scale() == outputScale ? out : limbs.relabel(out, outputScale);
    }

    /** The groups; {@code packed}: on 2n slots, the first group joining [a, b] into a + i·b. */
    private static List<DiagonalMatrix> matrices(int slots, int levels, boolean packed) {
        List<DiagonalMatrix> groups = SlotDft.slotsToCoeffs(slots, levels);
        List<DiagonalMatrix> out = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            DiagonalMatrix m = groups.get(i);
            out.add(!packed ? m : i == 0 ? SlotDft.joined(m) : SlotDft.repeated(m, false));
        }
        return out;
    }

    static Set<Integer> rotations(int slots, int levels, boolean packed) {
        Set<Integer> steps = new TreeSet<>();
        for (DiagonalMatrix m : matrices(slots, levels, packed)) {
            steps.addAll(LinearTransform.rotations(m));
        }
        return steps;
    }
}
