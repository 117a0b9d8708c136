package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.ckks.ring.LimbPool;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A slot-wise linear map evaluated baby-step giant-step: with each diagonal offset k = g + b (b in [0, n1)),
 * M·z = Σ_g rot(Σ_b rot(diag_k, −g) ⊙ rot(z, b), g). The baby rotations share one hoisted decomposition, so
 * the cost is about |babies| + |giants| key switches instead of one per diagonal, and the giant rotations are
 * summed before their one division by the special primes and the rescale's prime
 * ({@link Evaluator#rotateSumAndRescale}). The diagonals are encoded once, at the level the transform runs at and
 * the plaintext scale the caller chose.
 */
final class LinearTransform {
    private final int n;
    private final int[] babies;
    /** giant step -&gt; baby step -&gt; encoded, pre-rotated diagonal. */
    private final Map<Integer, Map<Integer, Plaintext>> plaintexts = new TreeMap<>();
    private final LimbPool pool;

    LinearTransform(DiagonalMatrix m, Encoder encoder, int level, double plaintextScale, LimbPool pool) {
        this.n = m.size();
        this.pool = pool;
        int n1 = babyStepSize(m);
        Set<Integer> b = new TreeSet<>();
        for (Map.Entry<Integer, double[][]> e : m.diagonals().entrySet()) {
            int k = signed(e.getKey(), n);
            int baby = Math.floorMod(k, n1);
            int giant = k - baby;
            b.add(baby);
            double[][] d = e.getValue();
            double[] re = new double[n];
            double[] im = new double[n];
            for (int i = 0; i < n; i++) {
                int src = Math.floorMod(i - giant, n);
                re[i] = d[0][src];
                im[i] = d[1][src];
            }
            plaintexts.computeIfAbsent(giant, x -> new TreeMap<>())
                    .put(baby, encoder.encodeComplex(re, im, n, level, plaintextScale));
        }
        babies = b.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * M·ct rescaled: at scale ct.scale()·plaintextScale / q_level, the giant steps' key switches and the rescale one
     * division ({@link Evaluator#rotateSumAndRescale}).
     */
    Ciphertext applyAndRescale(Evaluator ev, Ciphertext ct) {
        Ciphertext[] rotated = ev.rotateHoisted(ct, babies);
        Map<Integer, Ciphertext> byBaby = new TreeMap<>();
        for (int i = 0; i < babies.length; i++) {
            byBaby.put(babies[i], rotated[i]);
        }
        List<Map.Entry<Integer, Map<Integer, Plaintext>>> giants = List.copyOf(plaintexts.entrySet());
        Ciphertext[] inner = new Ciphertext[giants.size()];
        int[] steps = new int[giants.size()];
        pool.forEachCiphertext(inner.length, i -> inner[i] = innerSum(ev, giants.get(i).getValue(), byBaby));
        for (int i = 0; i < steps.length; i++) {
            steps[i] = Math.floorMod(giants.get(i).getKey(), n);
        }
        return ev.rotateSumAndRescale(inner, steps);
    }

    /** Σ_b rot(diag_(g+b), −g) ⊙ rot(z, b) for one giant step g. */
    private static Ciphertext innerSum(Evaluator ev, Map<Integer, Plaintext> diagonals,
            Map<Integer, Ciphertext> byBaby) {
        Ciphertext inner = null;
        for (Map.Entry<Integer, Plaintext> e : diagonals.entrySet()) {
            Ciphertext z = byBaby.get(e.getKey());
            // each product joins the sum in one pass, without polynomials of its own
            inner = inner == null ? ev.multiplyPlain(z, e.getValue()) : ev.multiplyPlainAndAdd(inner, z, e.getValue());
        }
        return inner;
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

    /** The power-of-two n1 that minimises the number of distinct baby plus giant rotations. */
    static int babyStepSize(DiagonalMatrix m) {
        int n = m.size();
        int best = 1;
        int bestCost = Integer.MAX_VALUE;
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
            int cost = b.size() + g.size();
            if (cost < bestCost) {
                bestCost = cost;
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
