package dev.polyhe.ckks.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The factored special DFT against its definition, and the sine approximation against Math.sin. */
class SlotDftTest {
    private static final Random RANDOM = new Random(7);

    private static int bitReverse(int x, int bits) {
        return Integer.reverse(x) >>> (32 - bits);
    }

    private static double[][] applyAll(List<DiagonalMatrix> groups, double[][] z) {
        for (DiagonalMatrix m : groups) {
            z = m.apply(z[0], z[1]);
        }
        return z;
    }

    @Test
    void slotsToCoeffsIsTheDecodingMapOnBitReversedCoefficients() {
        for (int n : new int[] {2, 8, 64}) {
            int bits = Integer.numberOfTrailingZeros(n);
            double[] wr = new double[n];
            double[] wi = new double[n];
            for (int k = 0; k < n; k++) {
                wr[k] = RANDOM.nextGaussian();
                wi[k] = RANDOM.nextGaussian();
            }
            double[] vr = new double[n];
            double[] vi = new double[n];
            for (int k = 0; k < n; k++) {
                vr[bitReverse(k, bits)] = wr[k];
                vi[bitReverse(k, bits)] = wi[k];
            }
            for (int levels = 1; levels <= 3; levels++) {
                double[][] z = applyAll(SlotDft.slotsToCoeffs(n, levels), new double[][] {vr, vi});
                long g = 1;
                for (int j = 0; j < n; j++) {
                    double zr = 0;
                    double zi = 0;
                    for (int k = 0; k < n; k++) {
                        double a = 2 * Math.PI * (g * k % (4L * n)) / (4.0 * n);
                        zr += wr[k] * Math.cos(a) - wi[k] * Math.sin(a);
                        zi += wr[k] * Math.sin(a) + wi[k] * Math.cos(a);
                    }
                    assertEquals(zr, z[0][j], 1e-9, "n=" + n + " slot " + j);
                    assertEquals(zi, z[1][j], 1e-9, "n=" + n + " slot " + j);
                    g = g * 5 % (4L * n);
                }
                double[][] back = applyAll(SlotDft.coeffsToSlots(n, levels), z);
                for (int k = 0; k < n; k++) {
                    assertEquals(vr[k], back[0][k] / n, 1e-9);
                    assertEquals(vi[k], back[1][k] / n, 1e-9);
                }
            }
        }
    }

    @Test
    void packedFormsSplitAndJoinRealAndImaginaryParts() {
        int n = 16;
        DiagonalMatrix m = SlotDft.coeffsToSlots(n, 2).get(1);
        double[] zr = new double[2 * n];
        double[] zi = new double[2 * n];
        for (int i = 0; i < n; i++) {
            zr[i] = zr[i + n] = RANDOM.nextGaussian();
            zi[i] = zi[i + n] = RANDOM.nextGaussian();
        }
        double[][] w = m.apply(java.util.Arrays.copyOf(zr, n), java.util.Arrays.copyOf(zi, n));
        double[][] split = SlotDft.repeated(m, true).apply(zr, zi);
        for (int i = 0; i < n; i++) {
            // [w, −i·w]: adding the conjugate leaves 2·Re w, then 2·Im w
            assertEquals(w[0][i], split[0][i], 1e-12);
            assertEquals(w[1][i], split[1][i], 1e-12);
            assertEquals(w[1][i], split[0][i + n], 1e-12);
            assertEquals(-w[0][i], split[1][i + n], 1e-12);
        }
        double[] ar = new double[2 * n];
        double[] ai = new double[2 * n];
        for (int i = 0; i < 2 * n; i++) {
            ar[i] = RANDOM.nextGaussian();
        }
        double[][] joined = SlotDft.joined(m).apply(ar, ai);
        double[][] direct = m.apply(java.util.Arrays.copyOf(ar, n), java.util.Arrays.copyOfRange(ar, n, 2 * n));
        for (int i = 0; i < 2 * n; i++) {
            assertEquals(direct[0][i % n], joined[0][i], 1e-12);
            assertEquals(direct[1][i % n], joined[1][i], 1e-12);
        }
    }

    @Test
    void groupsOfStagesHaveFewDiagonals() {
        List<DiagonalMatrix> groups = SlotDft.coeffsToSlots(512, 3);
        assertEquals(3, groups.size());
        for (DiagonalMatrix m : groups) {
            assertTrue(
                    m.diagonals().size() <= 15,
                    "3 stages give at most 2^4 - 1 diagonals: " + m.diagonals().size());
        }
    }

    @Test
    void theBabyStepGiantStepSplitsReproduceTheSeries() {
        ChebyshevSine s = ChebyshevSine.cheapest(17.5);
        ChebyshevSeries series = s.series();
        assertEquals(ChebyshevSine.ceilLog2(s.degree() + 1), series.depth(), "ceil(log2(d + 1)) for d = " + s.degree());
        for (double u = -1; u <= 1; u += 1.0 / 64) {
            double direct = 0;
            for (int k = 0; k <= s.degree(); k++) {
                direct += s.coefficient(k) * Math.cos(k * Math.acos(u));
            }
            assertEquals(direct, series.evaluate(u), 1e-12, "u = " + u);
        }
    }

    @Test
    void sineApproximationIsAccurateAcrossTheRange() {
        ChebyshevSine s = ChebyshevSine.cheapest(17.5);
        double worst = 0;
        for (int i = -17; i <= 17; i++) {
            for (double x = -0x1p-10; x <= 0x1p-10; x += 0x1p-14) {
                double y = i + x;
                worst = Math.max(worst, Math.abs(s.evaluate(y / s.inputBound()) - Math.sin(2 * Math.PI * y)));
            }
        }
        assertTrue(
                worst < 0x1p-40,
                "sine error 2^" + Math.log(worst) / Math.log(2) + ", " + s.degree() + "/" + s.doubleAngles());
        assertEquals(8, s.depth(), "degree " + s.degree() + ", double angles " + s.doubleAngles());
    }

    @Test
    void theEvenFormIsTheSameSineInFewerProducts() {
        // N16-boot-128's bound: K = 12 (the ephemeral secret of weight 32) plus 1/2
        ChebyshevSine direct = new ChebyshevSine(12.5, 2, false);
        ChebyshevSine even = new ChebyshevSine(12.5, 2, true);
        assertEquals(47, direct.degree());
        assertEquals(24, even.degree(), "half the interpolant's degree, in w = T_2(v)");
        assertEquals(8, direct.depth());
        assertEquals(8, even.depth(), "T_2's level and a series of half the degree: the same depth");
        assertEquals(16, direct.products(), "baby steps T_2..T_7, giants T_8, T_16, T_32, 5 splits, 2 double angles");
        assertEquals(14, even.products(), "T_2, baby steps T_2..T_7, giants T_8, T_16, 3 splits, 2 double angles");
        ChebyshevSine chosen = ChebyshevSine.cheapest(12.5);
        assertTrue(chosen.even(), "the cheapest form at depth 8");
        assertEquals(14, chosen.products());
        double worst = 0;
        for (double y = -12.5; y <= 12.5; y += 1.0 / 1024) {
            worst = Math.max(
                    worst, Math.abs(even.evaluate(y / even.inputBound()) - direct.evaluate(y / direct.inputBound())));
        }
        assertTrue(worst < 0x1p-40, "the forms differ by 2^" + Math.log(worst) / Math.log(2) + " on [-B, B]");
    }
}
