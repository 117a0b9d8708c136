package dev.polyhe.ckks.bootstrap;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The CKKS special DFT on n slots (z_j = Σ_k w_k ζ_j^k with ζ_j = exp(2πi·5^j / 4n), w the complex packing
 * t_k + i·t_{k+n} of the 2n real coefficients) as log2(n) radix-2 butterfly stages, each a matrix with three
 * diagonals (0, ±len/2), merged into a chosen number of groups: one group is one level of a homomorphic
 * transform. The bit-reversal permutation of the FFT is left out on both sides: CoeffsToSlots then yields the
 * coefficients in bit-reversed slot order, EvalMod is slot-wise, and SlotsToCoeffs consumes that same order.
 */
final class SlotDft {
    private SlotDft() {}

    /** Groups (in application order) whose product maps slots z to bitrev(w)·n (the 1/n is the caller's). */
    static List<DiagonalMatrix> coeffsToSlots(int n, int levels) {
        List<DiagonalMatrix> stages = new ArrayList<>();
        for (int len = n; len >= 2; len >>= 1) {
            stages.add(inverseStage(n, len));
        }
        return group(stages, levels);
    }

    /** Groups (in application order) whose product maps bitrev(w) to slots z. */
    static List<DiagonalMatrix> slotsToCoeffs(int n, int levels) {
        List<DiagonalMatrix> stages = new ArrayList<>();
        for (int len = 2; len <= n; len <<= 1) {
            stages.add(forwardStage(n, len));
        }
        return group(stages, levels);
    }

    /**
     * The 2n-slot form of an n-slot map for inputs that repeat every n slots (as sparse packing leaves them):
     * the same diagonals, repeated. With {@code lowerTimesMinusI}, rows n..2n−1 are also multiplied by −i, so
     * that z ↦ [M·z, −i·M·z]; adding the conjugate then gives [2·Re(M·z), 2·Im(M·z)], real and imaginary
     * parts side by side in one ciphertext (one EvalMod instead of two).
     */
    static DiagonalMatrix repeated(DiagonalMatrix m, boolean lowerTimesMinusI) {
        int n = m.size();
        DiagonalMatrix out = DiagonalMatrix.builder(2 * n);
        for (Map.Entry<Integer, double[][]> e : m.diagonals().entrySet()) {
            int k = e.getKey() > n / 2 ? e.getKey() - n : e.getKey();
            double[][] d = e.getValue();
            for (int r = 0; r < 2 * n; r++) {
                double re = d[0][r % n];
                double im = d[1][r % n];
                if (lowerTimesMinusI && r >= n) {
                    double t = re;
                    re = im;
                    im = -t;
                }
                out.add(r, r + k, re, im);
            }
        }
        return out;
    }

    /** The 2n-slot map [a, b] ↦ [M·(a + i·b), M·(a + i·b)]: the real and imaginary halves joined again. */
    static DiagonalMatrix joined(DiagonalMatrix m) {
        int n = m.size();
        DiagonalMatrix out = DiagonalMatrix.builder(2 * n);
        for (Map.Entry<Integer, double[][]> e : m.diagonals().entrySet()) {
            double[][] d = e.getValue();
            for (int r = 0; r < 2 * n; r++) {
                int c = (r % n + e.getKey()) % n;
                double re = d[0][r % n];
                double im = d[1][r % n];
                out.add(r, c, re, im);
                out.add(r, c + n, -im, re);
            }
        }
        return out;
    }

    /** How many stages go into each of {@code levels} groups: as even as possible, larger groups first. */
    static int[] split(int stages, int levels) {
        int g = Math.max(1, Math.min(levels, stages));
        int[] sizes = new int[g];
        for (int i = 0; i < g; i++) {
            sizes[i] = stages / g + (i < stages % g ? 1 : 0);
        }
        return sizes;
    }

    private static List<DiagonalMatrix> group(List<DiagonalMatrix> stages, int levels) {
        List<DiagonalMatrix> groups = new ArrayList<>();
        if (stages.isEmpty()) {
            return groups;
        }
        int next = 0;
        for (int size : split(stages.size(), levels)) {
            DiagonalMatrix m = stages.get(next++);
            for (int s = 1; s < size; s++) {
                m = stages.get(next++).times(m);
            }
            groups.add(m);
        }
        return groups;
    }

    /**
     * exp(2πi·(5^j mod 4len) / 4len) for j in [0, half), the butterfly twiddles of SpecialFft: the powers of 5 one
     * after the other (computing each from scratch made a stage quadratic in its length, seconds at 2^15 slots).
     */
    private static double[][] twiddles(int half, int len) {
        long lenq = 4L * len;
        double[][] w = new double[half][];
        long g = 1;
        for (int j = 0; j < half; j++) {
            double angle = 2 * Math.PI * g / lenq;
            w[j] = new double[] {Math.cos(angle), Math.sin(angle)};
            g = g * 5 % lenq;
        }
        return w;
    }

    /** out[a] = in[a] + w·in[b], out[b] = in[a] − w·in[b] (decoding direction). */
    private static DiagonalMatrix forwardStage(int n, int len) {
        DiagonalMatrix m = DiagonalMatrix.builder(n);
        int half = len >> 1;
        double[][] ws = twiddles(half, len);
        for (int j = 0; j < half; j++) {
            double[] w = ws[j];
            for (int i = 0; i < n; i += len) {
                int a = i + j;
                int b = a + half;
                m.add(a, a, 1, 0);
                m.add(a, b, w[0], w[1]);
                m.add(b, a, 1, 0);
                m.add(b, b, -w[0], -w[1]);
            }
        }
        return m;
    }

    /** out[a] = in[a] + in[b], out[b] = (in[a] − in[b])·conj(w) (encoding direction). */
    private static DiagonalMatrix inverseStage(int n, int len) {
        DiagonalMatrix m = DiagonalMatrix.builder(n);
        int half = len >> 1;
        double[][] ws = twiddles(half, len);
        for (int j = 0; j < half; j++) {
            double[] w = ws[j];
            for (int i = 0; i < n; i += len) {
                int a = i + j;
                int b = a + half;
                m.add(a, a, 1, 0);
                m.add(a, b, 1, 0);
                m.add(b, a, w[0], -w[1]);
                m.add(b, b, -w[0], w[1]);
            }
        }
        return m;
    }
}
