package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.ckks.scheme.SchemeParameters;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The homomorphic inverse special DFT: slots z of the raised ciphertext become c·bitrev(w), w the complex
 * packing of the coefficients. One level per group of butterfly stages; each group's diagonals are encoded
 * at the scale of the prime its rescale removes, so the ciphertext's scale comes back unchanged.
 */
final class CoeffsToSlots {
    private final List<LinearTransform> transforms = new ArrayList<>();

    /**
     * Starts at {@code level}; {@code constant} (about 2^-14 at n = 512) is spread evenly over the groups. Folded
     * into one group it would leave that group's diagonals at 2^-14 of their size, and the rounding of their
     * encoding (absolute, about sqrt(N)/2 in integer units) would cost those 14 bits of the message: the
     * slots here are dominated by q_0·I, 2^16 times the message.
     */
    CoeffsToSlots(
            SchemeParameters params,
            CiphertextLimbs limbs,
            int slots,
            int levels,
            boolean packed,
            int level,
            double constant) {
        List<DiagonalMatrix> groups = matrices(slots, levels, packed, constant);
        for (int i = 0; i < groups.size(); i++) {
            transforms.add(new LinearTransform(groups.get(i), limbs, level - i, params.q(level - i)));
        }
    }

    /**
     * The groups; {@code packed}: on 2n slots, the last group leaving [w, −i·w] (see {@link SlotDft#repeated}),
     * for a ciphertext of n sparse slots viewed with 2n.
     */
    private static List<DiagonalMatrix> matrices(int slots, int levels, boolean packed, double constant) {
        List<DiagonalMatrix> groups = SlotDft.coeffsToSlots(slots, levels);
        double share = Math.pow(constant, 1.0 / groups.size());
        List<DiagonalMatrix> out = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            DiagonalMatrix m = groups.get(i).scaled(share);
            out.add(packed ? SlotDft.repeated(m, i == groups.size() - 1) : m);
        }
        return out;
    }

    int levels() {
        return transforms.size();
    }

    Ciphertext apply(CiphertextLimbs limbs, Ciphertext ct) {
        for (LinearTransform t : transforms) {
            ct = t.applyAndRescale(limbs, ct);
        }
        return ct;
    }

    static Set<Integer> rotations(int slots, int levels, boolean packed) {
        Set<Integer> steps = new TreeSet<>();
        for (DiagonalMatrix m : matrices(slots, levels, packed, 1)) {
            steps.addAll(LinearTransform.rotations(m));
        }
        return steps;
    }
}
