package dev.polyhe.approx.goldschmidt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.arith.ScalarArith;
import dev.polyhe.api.arith.Traced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GoldschmidtInverseSqrtTest {
    private static final Domain DOMAIN = new Domain(0.05, 5);

    @ParameterizedTest(name = "iterations={0}")
    @CsvSource({
        // iterations, max relative error, max absolute error (on [0.05, 5], 20 001 points)
        "5,  0.181,   0.808",
        "6,  0.0460,  0.206",
        "7,  3.2e-3,  0.0140",
        "8,  1.5e-5,  6.6e-5",
        "9,  3.2e-10, 1.5e-9",
        "10, 3.2e-10, 1.5e-9", // converged after 9 (d_9 < 2^-19)
    })
    void errorPerIterationCount(int iterations, double relBound, double absBound) {
        GoldschmidtInverseSqrt g = new GoldschmidtInverseSqrt(DOMAIN, iterations);
        assertTrue(g.maxRelativeError() <= relBound, g.describe() + ": relative error " + g.maxRelativeError());
        assertTrue(g.maxError() <= absBound, g.describe() + ": absolute error " + g.maxError());
    }

    @Test
    void relativeErrorFollowsTheAnalyticRecurrence() {
        for (int n = 1; n <= 8; n++) {
            GoldschmidtInverseSqrt g = new GoldschmidtInverseSqrt(DOMAIN, n);
            assertEquals(g.relativeErrorBound(), g.maxRelativeError(), 1e-12, g.describe());
        }
    }

    @Test
    void errorFallsMonotonicallyWithIterations() {
        double previous = Double.POSITIVE_INFINITY;
        for (int n = 1; n <= 9; n++) {
            double err = new GoldschmidtInverseSqrt(DOMAIN, n).maxError();
            assertTrue(err < previous, "iterations " + n + ": " + err + " not below " + previous);
            previous = err;
        }
    }

    @Test
    void depthIsTwicePerIterationAndMatchesTheMeasuredProgram() {
        ScalarArith arith = new ScalarArith();
        assertEquals(1, new GoldschmidtInverseSqrt(DOMAIN, 1).depth());
        Domain wide = new Domain(1e-3, 1e3); // d₀ = 1 − 2e-6: every one of 20 iterations counts
        for (int n = 2; n <= 20; n++) {
            GoldschmidtInverseSqrt g = new GoldschmidtInverseSqrt(wide, n);
            int measured = g.evaluate(arith, Traced.of(1.0)).depth();
            assertEquals(2 * n, measured, "iterations " + n);
            assertEquals(measured, g.depth());
            assertEquals((Math.pow(3, n) - 1) / 2, g.degree(), 0.0);
        }
    }

    @Test
    void stopsOnceTheContractionIsBelowTwoToTheMinus19() {
        GoldschmidtInverseSqrt g = new GoldschmidtInverseSqrt(new Domain(0.028, 0.034), 10);
        // d₀ counted as 1/2: 0.22, 0.039, 1.1e-3, 9.5e-7 < 2^-19 (2^-40 took a fifth iteration, two levels more)
        assertEquals(4, g.effectiveIterations());
        assertTrue(g.maxRelativeError() < 0x1p-20, "relative error " + g.maxRelativeError());
        assertEquals(8, g.depth(), "eight levels: what LayerNorm leaves its normalizer out of a bootstrap's ten");
        // the worst start it is sized for, d₀ = 1/2 (x = (a+b)/4), converges as far
        GoldschmidtInverseSqrt wide = new GoldschmidtInverseSqrt(new Domain(1, 3), 10);
        assertEquals(4, wide.effectiveIterations());
        assertTrue(wide.maxRelativeError() < 0x1p-20, "relative error " + wide.maxRelativeError());
        // a wider domain iterates on until it gets as far
        GoldschmidtInverseSqrt wider = new GoldschmidtInverseSqrt(new Domain(1, 9), 10);
        assertEquals(6, wider.effectiveIterations());
        assertTrue(wider.maxRelativeError() < 0x1p-20, "relative error " + wider.maxRelativeError());
    }

    @Test
    void layerNormVarianceDomain() {
        // LayerNorm's variance + eps: κ = 100 converges in 9 of the default 10 iterations, κ = 1000 needs two more.
        GoldschmidtInverseSqrt narrow = new GoldschmidtInverseSqrt(new Domain(0.1, 10), 10);
        assertTrue(narrow.maxRelativeError() < 0x1p-20, "relative error " + narrow.maxRelativeError());
        assertEquals(18, narrow.depth());
        GoldschmidtInverseSqrt wide10 = new GoldschmidtInverseSqrt(new Domain(0.01, 10), 10);
        GoldschmidtInverseSqrt wide12 = new GoldschmidtInverseSqrt(new Domain(0.01, 10), 12);
        assertEquals(1.66e-3, wide10.maxRelativeError(), 1e-5);
        assertTrue(wide12.maxRelativeError() < 1e-9, "relative error " + wide12.maxRelativeError());
    }
}
