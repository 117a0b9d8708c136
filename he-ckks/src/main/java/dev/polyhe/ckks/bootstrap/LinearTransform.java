package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A slot-wise linear map evaluated baby-step giant-step: with each diagonal offset k = g + b (b in [0, n1)),
 * M·z = Σ_g rot(Σ_b rot(diag_k, −g) ⊙ rot(z, b), g). The baby rotations share one hoisted decomposition and, where
 * the ring executor double-hoists, skip their divisions by the special primes: the diagonals are encoded over
 * Q ∪ P and multiply the baby steps there ({@link CiphertextLimbs#multiplyDiagonalsAndRescale}). The giant
 * rotations are summed before their one division by the special primes and the rescale's prime. The diagonals
 * are encoded once, at the level the transform runs at and the plaintext scale the caller chose.
 */
final class LinearTransform {
    private final int[] babies;
    private final int[] giants;
    /** [giant][baby]: the encoded, pre-rotated diagonal, null where the matrix has none. */
    private final EncodedDiagonal[][] diagonals;

    /** {@code limbs} encodes the diagonals; they are kept, not it, so one transform serves every evaluator. */
    LinearTransform(DiagonalMatrix m, CiphertextLimbs limbs, int level, double plaintextScale) {
        int n = m.size();
        int n1 = babyStepSize(m);
        Map<Integer, Map<Integer, double[][]>> byGiant = new TreeMap<>();
        Set<Integer> b = new TreeSet<>();
        for (Map.Entry<Integer, double[][]> e : m.diagonals().entrySet()) {
            int k = signed(e.getKey(), n);
            int baby = Math.floorMod(k, n1);
            b.add(baby);
            // giants equal modulo n (k − baby = −n and 0 when n1 = n) are one rotation: one sum
            byGiant.computeIfAbsent(Math.floorMod(k - baby, n), x -> new TreeMap<>())
                    .put(baby, e.getValue());
        }
        babies = b.stream().mapToInt(Integer::intValue).toArray();
        giants = new int[byGiant.size()];
        diagonals = new EncodedDiagonal[giants.length][babies.length];
        int g = 0;
        for (Map.Entry<Integer, Map<Integer, double[][]>> e : byGiant.entrySet()) {
            int giant = e.getKey();
            giants[g] = giant;
            for (int i = 0; i < babies.length; i++) {
                double[][] d = e.getValue().get(babies[i]);
                if (d == null) {
                    continue;
                }
                double[] re = new double[n];
                double[] im = new double[n];
                for (int j = 0; j < n; j++) {
                    int src = Math.floorMod(j - giant, n);
                    re[j] = d[0][src];
                    im[j] = d[1][src];
                }
                diagonals[g][i] = limbs.encodeDiagonal(re, im, n, level, plaintextScale);
            }
            g++;
        }
    }

    /** M·ct rescaled by {@code limbs} (the evaluator's, with its keys): at scale ct.scale()·plaintextScale / q_l. */
    Ciphertext applyAndRescale(CiphertextLimbs limbs, Ciphertext ct) {
        return limbs.multiplyDiagonalsAndRescale(ct, babies, giants, diagonals);
    }

    /** The rotation steps (normalised to [0, n)) that evaluating m needs. */
    static Set<Integer> rotations(DiagonalMatrix m) {
        int n = m.size();
        int n1 = babyStepSize(m);
        Set<Integer> steps = new TreeSet<>();
        for (int key : m.diagonals().keySet()) {
            int k = signed(key, n);
            int baby = Math.floorMod(k, n1);
            steps.add(baby);
            steps.add(Math.floorMod(k - baby, n));
        }
        steps.remove(0);
        return steps;
    }

    /**
     * What a giant step costs in baby steps, double-hoisted: its own ModDown of one polynomial and its own
     * decomposition (ModUp) against a baby step's inner product alone.
     */
    static final int GIANT_STEP_WEIGHT = 4;

    /**
     * The power-of-two n1 that minimises babies + {@link #GIANT_STEP_WEIGHT}·giants (rotations other than 0); of
     * equal costs, the one with fewer rotation keys.
     */
    static int babyStepSize(DiagonalMatrix m) {
        int n = m.size();
        int best = 1;
        int bestCost = Integer.MAX_VALUE;
        int bestKeys = Integer.MAX_VALUE;
        for (int n1 = 1; n1 <= n; n1 <<= 1) {
            Set<Integer> b = new TreeSet<>();
            Set<Integer> g = new TreeSet<>();
            for (int key : m.diagonals().keySet()) {
                int k = signed(key, n);
                int baby = Math.floorMod(k, n1);
                b.add(baby);
                g.add(k - baby);
            }
            b.remove(0);
            g.remove(0);
            int cost = b.size() + GIANT_STEP_WEIGHT * g.size();
            int keys = b.size() + g.size();
            if (cost < bestCost || cost == bestCost && keys < bestKeys) {
                bestCost = cost;
                bestKeys = keys;
                best = n1;
            }
        }
        return best;
    }

    /** The representative of k mod n in (−n/2, n/2], so that right rotations stay short. */
    private static int signed(int k, int n) {
        return k > n / 2 ? k - n : k;
    }
}
