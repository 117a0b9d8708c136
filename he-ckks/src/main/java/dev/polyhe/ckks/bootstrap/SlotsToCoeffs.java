package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.ckks.scheme.SchemeParameters;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The homomorphic special DFT: bitrev(w) in the slots becomes the slots z. Every group but the last keeps the
 * scale (diagonals at the prime's scale); the last group's diagonals are encoded at Δ·q_l / scale so that the
 * result comes out at the requested scale Δ exactly, with the constant c folded in. That last group depends
 * on (scale, Δ, c) and is rebuilt when they change (they do not, for ciphertexts of one circuit).
 */
final class SlotsToCoeffs {
    private final SchemeParameters params;
    private final int startLevel;
    private final List<DiagonalMatrix> groups;
    private final List<LinearTransform> leading = new ArrayList<>();
    /** The last group for the most recent (scale, Δ, c): one entry, so drifting scales cannot pile up. */
    private volatile Last last;

    private record Last(List<Double> key, LinearTransform transform) {}

    SlotsToCoeffs(SchemeParameters params, CiphertextLimbs limbs, int slots, int levels, boolean packed, int level) {
        this.params = params;
        this.startLevel = level;
        this.groups = matrices(slots, levels, packed);
        for (int i = 0; i < groups.size() - 1; i++) {
            leading.add(new LinearTransform(groups.get(i), limbs, level - i, params.q(level - i)));
        }
    }

    int levels() {
        return groups.size();
    }

    /** c·DFT(ct), rescaled to {@code outputScale} by {@code limbs} (which also encodes a new last group). */
    Ciphertext apply(CiphertextLimbs limbs, Ciphertext ct, double constant, double outputScale) {
        for (LinearTransform t : leading) {
            ct = t.applyAndRescale(limbs, ct);
        }
        int level = startLevel - leading.size();
        double inputScale = ct.scale();
        List<Double> key = List.of(inputScale, outputScale, constant);
        Last l = last;
        if (l == null || !l.key().equals(key)) {
            l = new Last(
                    key,
                    new LinearTransform(
                            groups.get(groups.size() - 1).scaled(constant),
                            limbs,
                            level,
                            outputScale * params.q(level) / inputScale));
            last = l;
        }
        return l.transform().applyAndRescale(limbs, ct);
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
