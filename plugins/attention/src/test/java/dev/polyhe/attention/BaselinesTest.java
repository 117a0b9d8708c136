package dev.polyhe.attention;

import static dev.polyhe.attention.AttentionFixtures.causal;
import static dev.polyhe.attention.AttentionFixtures.gaussian;
import static dev.polyhe.attention.AttentionFixtures.kernel;
import static dev.polyhe.attention.AttentionFixtures.maxAbsDiff;
import static dev.polyhe.attention.AttentionFixtures.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.AttentionFixtures.Run;
import dev.polyhe.attention.power.LengthAgnosticPowerSoftmaxMechanism;
import dev.polyhe.attention.relu.ScaledReluMechanism;
import dev.polyhe.attention.softmax.NormalizeAndSquareMechanism;
import dev.polyhe.attention.softmax.SoftmaxMechanism;
import dev.polyhe.attention.softmax.TaylorGoldschmidtSoftmaxMechanism;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BaselinesTest {
    private static final AttentionKernel SOFTMAX = kernel(new SoftmaxMechanism(), Map.of());

    private static Matrix softmax(Matrix s, Matrix mask) {
        double[] out = new double[s.data().length];
        for (int r = 0; r < s.rows(); r++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < s.cols(); c++) {
                if (mask == null || mask.get(r, c) > 0) {
                    max = Math.max(max, s.get(r, c));
                }
            }
            double sum = 0;
            for (int c = 0; c < s.cols(); c++) {
                double e = (mask == null ? 1 : mask.get(r, c)) * Math.exp(s.get(r, c) - max);
                out[r * s.cols() + c] = e;
                sum += e;
            }
            for (int c = 0; c < s.cols(); c++) {
                out[r * s.cols() + c] /= sum;
            }
        }
        return new Matrix(s.rows(), s.cols(), out);
    }

    @Test
    void exactSoftmaxIsTheReferenceAndNeverOverflows() {
        Matrix s = gaussian(16, 32, 2, 4);
        Matrix mask = causal(16, 32);
        assertTrue(maxAbsDiff(softmax(s, null), run(SOFTMAX, s, null).weights()) < 1e-15);
        assertTrue(maxAbsDiff(softmax(s, mask), run(SOFTMAX, s, mask).weights()) < 1e-15);
        assertFalse(SOFTMAX.polynomial());
        Matrix huge = Matrix.of(new double[][] {{1000, 999, -1000}, {-1000, -1001, -1002}});
        Matrix w = run(SOFTMAX, huge, null).weights();
        assertEquals(1 / (1 + Math.exp(-1)), w.get(0, 0), 1e-15);
        assertEquals(1 / (1 + Math.exp(-1) + Math.exp(-2)), w.get(1, 0), 1e-15);
    }

    @ParameterizedTest(name = "L={0}")
    @ValueSource(ints = {8, 128, 512})
    void taylorGoldschmidtBaseline(int keys) {
        AttentionKernel k = kernel(new TaylorGoldschmidtSoftmaxMechanism(), Map.of());
        assertTrue(k.polynomial());
        Matrix s = gaussian(8, keys, 0.5, keys);
        Run r = run(k, s, null);
        assertTrue(
                maxAbsDiff(softmax(s, null), r.weights()) < 1e-5,
                "vs softmax: " + maxAbsDiff(softmax(s, null), r.weights()));
        // Taylor degree 8 (4) + Goldschmidt 21 iterations (22) + the product (1); masked: one more.
        assertEquals(27, r.depth());
        assertEquals(28, run(k, s, causal(8, keys)).depth());
        assertFalse(kernel(new TaylorGoldschmidtSoftmaxMechanism(), Map.of("subtract-max", "true"))
                .polynomial());
    }

    @ParameterizedTest(name = "L={0}")
    @ValueSource(ints = {8, 128, 512})
    void normalizeAndSquareBaseline(int keys) {
        AttentionKernel k = kernel(new NormalizeAndSquareMechanism(), Map.of());
        assertTrue(k.polynomial());
        Matrix s = gaussian(8, keys, 1, keys + 1);
        Matrix mask = causal(8, keys);
        Run plain = run(k, s, null);
        Run masked = run(k, s, mask);
        assertTrue(
                maxAbsDiff(softmax(s, null), plain.weights()) < 1e-7,
                "vs softmax: " + maxAbsDiff(softmax(s, null), plain.weights()));
        assertTrue(maxAbsDiff(softmax(s, mask), masked.weights()) < 1e-7, "masked vs softmax");
        assertTrue(AttentionFixtures.maxRowSumError(plain.weights()) < 1e-7);
        // Scores up to the assumed range R = 8 (σ = 3) stay accurate to ~1e-4.
        Matrix wide = gaussian(4, keys, 3, keys + 2);
        assertTrue(maxAbsDiff(softmax(wide, null), run(k, wide, null).weights()) < 1e-4);
        // The paper quotes depth 48 for this method, which the defaults (k = 4, Taylor 6, 4 / 14 iterations) give where
        // every iteration counts; on short rows the divisions' domains are narrow and the last ones stop earlier
        // (iterations that change no float64 value are not run).
        assertTrue(plain.depth() <= 48 && plain.depth() >= 40, "depth " + plain.depth());
        assertEquals(keys >= 512 ? 48 : plain.depth(), plain.depth());
        assertEquals(
                plain.depth() + 6,
                masked.depth(),
                "one level for the mask and one per normalization for the " + "per-row mean");
        assertEquals(0, plain.nonPolynomialCalls());
    }

    @Test
    void scaledReluBaseline() {
        AttentionKernel k = kernel(new ScaledReluMechanism(), Map.of());
        int keys = 16;
        Matrix s = gaussian(4, keys, 2, 3);
        Run r = run(k, s, null);
        double worst = 0;
        for (int i = 0; i < s.data().length; i++) {
            worst = Math.max(worst, Math.abs(r.weights().data()[i] - Math.max(0, s.data()[i]) / keys));
        }
        // Chebyshev ReLU of degree 32 on [−8, 8]: error ≈ 0.072, divided by L.
        assertTrue(worst < 0.073 / keys, "vs ReLU(x)/L: " + worst);
        assertEquals(7, r.depth(), "⌈log2 33⌉ = 6, plus the map x/8");
        assertTrue(k.polynomial());
    }

    @Test
    void powerSoftmaxNeedsFarFewerLevelsThanTheSoftmaxBaselines() {
        Matrix s = gaussian(4, 128, 0.5, 8);
        // the paper's Goldschmidt, from the public scale (guess-degree 0); the default starts from a first guess
        int power = run(kernel(new LengthAgnosticPowerSoftmaxMechanism(), Map.of("guess-degree", "0")), s, null)
                .depth();
        int nexus = run(kernel(new TaylorGoldschmidtSoftmaxMechanism(), Map.of()), s, null)
                .depth();
        int square = run(kernel(new NormalizeAndSquareMechanism(), Map.of()), s, null)
                .depth();
        assertEquals(25, power);
        assertTrue(power < nexus && nexus < square);
        assertTrue(1 - (double) power / square >= 0.23, "the paper: at least 23% less depth than Cho et al.");
    }

    @Test
    void everyMechanismGivesMaskedKeysZeroWeight() {
        Matrix s = gaussian(6, 6, 0.7, 12);
        Matrix mask = causal(6, 6);
        for (AttentionKernel k : new AttentionKernel[] {
            SOFTMAX,
            kernel(new TaylorGoldschmidtSoftmaxMechanism(), Map.of()),
            kernel(new NormalizeAndSquareMechanism(), Map.of()),
            kernel(new ScaledReluMechanism(), Map.of())
        }) {
            Matrix w = run(k, s, mask).weights();
            for (int r = 0; r < 6; r++) {
                for (int c = r + 1; c < 6; c++) {
                    assertEquals(0.0, Math.abs(w.get(r, c)), k.describe());
                }
            }
        }
    }
}
