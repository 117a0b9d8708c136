package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The flooding width: t from the given imaginary parts, rounded up to a power of two; σ = √(12τ)·2^(s/2)·t. */
class NoiseFloodingTest {
    @Test
    void theEstimateIsTheRmsRoundedUpToAPowerOfTwoAndAtLeastTheFloor() {
        // rms of {3e-6, -4e-6} and {0, 0}: √(25e-12 / 4) = 2.5e-6, rounded up to 2^-18 ≈ 3.8e-6
        double t = NoiseFlooding.errorEstimate(new double[][] {{3e-6, -4e-6}, {0, 0}}, 0x1p-40);
        assertEquals(0x1p-18, t);
        assertEquals(0x1p-18, NoiseFlooding.errorEstimate(new double[][] {{0x1p-18}}, 0x1p-40), "a power of two stays");
        assertEquals(0x1p-30, NoiseFlooding.errorEstimate(new double[][] {{0, 0}}, 0x1p-30), "all zero: the floor");
        assertEquals(0x1p-30, NoiseFlooding.errorEstimate(new double[][] {}, 0x1p-30), "nothing read out: the floor");
    }

    @Test
    void sigmaFollowsTheDocumentedFormulaAndOffAddsNothing() {
        NoiseFlooding f = new NoiseFlooding(30, 4);
        assertTrue(f.enabled());
        assertFalse(NoiseFlooding.OFF.enabled());
        assertEquals(Math.sqrt(48) * 0x1p15 * 0x1p-20, f.sigma(0x1p-20), 1e-18);
        var applied = new NoiseFlooding.Applied(f, 0x1p-20, f.sigma(0x1p-20));
        assertEquals(15 + Math.log(Math.sqrt(48)) / Math.log(2), applied.bitsLost(), 1e-12);
    }

    @Test
    void floodingAddsGaussianNoiseOfWidthSigma() {
        double[] v = new double[20000];
        NoiseFlooding.flood(v, 0.5, new Random(7));
        double sum = 0;
        double sq = 0;
        for (double x : v) {
            sum += x;
            sq += x * x;
        }
        assertEquals(0, sum / v.length, 0.02, "zero mean");
        assertEquals(0.5, Math.sqrt(sq / v.length), 0.02, "standard deviation sigma");
    }

    @Test
    void outOfRangeSettingsAreRefusedWithTheBounds() {
        var bits = assertThrows(IllegalArgumentException.class, () -> new NoiseFlooding(129, 1));
        assertTrue(bits.getMessage().contains("0 (off) to 128 bits, got 129"), bits.getMessage());
        var queries = assertThrows(IllegalArgumentException.class, () -> new NoiseFlooding(30, 0));
        assertTrue(queries.getMessage().contains("must be 1 to"), queries.getMessage());
    }
}
