package dev.polyhe.ckks.bootstrap;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * An n×n complex matrix stored by its non-zero generalized diagonals: diagonal k holds M[r][(r + k) mod n]
 * at row r. That is the form a slot-wise linear map takes homomorphically, M·z = Σ_k diag_k ⊙ rot(z, k).
 */
final class DiagonalMatrix {
    private final int n;
    /** offset in [0, n) -&gt; {re[], im[]}. */
    private final TreeMap<Integer, double[][]> diagonals;

    private DiagonalMatrix(int n, TreeMap<Integer, double[][]> diagonals) {
        this.n = n;
        this.diagonals = diagonals;
    }

    static DiagonalMatrix builder(int n) {
        return new DiagonalMatrix(n, new TreeMap<>());
    }

    int size() {
        return n;
    }

    /** Adds (re, im) to M[row][col]; for building only. */
    void add(int row, int col, double re, double im) {
        int k = Math.floorMod(col - row, n);
        double[][] d = diagonals.computeIfAbsent(k, x -> new double[2][n]);
        d[0][row] += re;
        d[1][row] += im;
    }

    Map<Integer, double[][]> diagonals() {
        return Collections.unmodifiableMap(diagonals);
    }

    /** this · b: b is applied first. */
    DiagonalMatrix times(DiagonalMatrix b) {
        TreeMap<Integer, double[][]> out = new TreeMap<>();
        for (Map.Entry<Integer, double[][]> ea : diagonals.entrySet()) {
            int k1 = ea.getKey();
            double[] ar = ea.getValue()[0];
            double[] ai = ea.getValue()[1];
            for (Map.Entry<Integer, double[][]> eb : b.diagonals.entrySet()) {
                int k = (k1 + eb.getKey()) % n;
                double[] br = eb.getValue()[0];
                double[] bi = eb.getValue()[1];
                double[][] d = out.computeIfAbsent(k, x -> new double[2][n]);
                for (int r = 0; r < n; r++) {
                    int t = (r + k1) % n;
                    d[0][r] += ar[r] * br[t] - ai[r] * bi[t];
                    d[1][r] += ar[r] * bi[t] + ai[r] * br[t];
                }
            }
        }
        out.values().removeIf(DiagonalMatrix::isZero);
        return new DiagonalMatrix(n, out);
    }

    DiagonalMatrix scaled(double c) {
        TreeMap<Integer, double[][]> out = new TreeMap<>();
        diagonals.forEach((k, d) -> {
            double[][] s = new double[2][n];
            for (int r = 0; r < n; r++) {
                s[0][r] = d[0][r] * c;
                s[1][r] = d[1][r] * c;
            }
            out.put(k, s);
        });
        return new DiagonalMatrix(n, out);
    }

    /** M·z in plain arithmetic, for tests and planning. */
    double[][] apply(double[] re, double[] im) {
        double[] or = new double[n];
        double[] oi = new double[n];
        diagonals.forEach((k, d) -> {
            for (int r = 0; r < n; r++) {
                int c = (r + k) % n;
                or[r] += d[0][r] * re[c] - d[1][r] * im[c];
                oi[r] += d[0][r] * im[c] + d[1][r] * re[c];
            }
        });
        return new double[][] {or, oi};
    }

    private static boolean isZero(double[][] d) {
        for (int r = 0; r < d[0].length; r++) {
            if (d[0][r] != 0 || d[1][r] != 0) {
                return false;
            }
        }
        return true;
    }
}
