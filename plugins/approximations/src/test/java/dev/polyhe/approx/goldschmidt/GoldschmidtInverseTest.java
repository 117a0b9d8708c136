package dev.polyhe.approx.goldschmidt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.arith.ScalarArith;
import dev.polyhe.api.arith.Traced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GoldschmidtInverseTest {
    /** κ = 100: ρ = (b−a)/(b+a) = 4.95/5.05. */
    private static final Domain DOMAIN = new Domain(0.05, 5);

    @ParameterizedTest(name = "iterations={0}")
    @CsvSource({
        // iterations, max relative error bound, max absolute error bound (on [0.05, 5], 20 001 points)
        "6,  0.279,   5.57",
        "7,  0.0774,  1.55",
        "8,  6.0e-3,  0.120",
        "9,  3.6e-5,  7.2e-4",
        "10, 1.3e-9,  2.6e-8",
        "11, 5e-14,   5e-13",
    })
    void errorPerIterationCount(int iterations, double relBound, double absBound) {
        GoldschmidtInverse g = new GoldschmidtInverse(DOMAIN, iterations);
        assertTrue(g.maxRelativeError() <= relBound, g.describe() + ": relative error " + g.maxRelativeError());
        assertTrue(g.maxError() <= absBound, g.describe() + ": absolute error " + g.maxError());
    }

    @Test
    void relativeErrorIsExactlyTheContractionPower() {
        // p_n(x) = (1 − e^{2^n})/x with e = 1 − s·x, so the worst relative error is ρ^{2^n}, reached at x = a.
        for (int n = 1; n <= 9; n++) {
            GoldschmidtInverse g = new GoldschmidtInverse(DOMAIN, n);
            double rho = 4.95 / 5.05;
            assertEquals(
                    Math.pow(rho, 1 << n), g.maxRelativeError(), 1e-12 + 1e-9 * g.relativeErrorBound(), g.describe());
            assertEquals(g.relativeErrorBound(), g.maxRelativeError(), 1e-12, g.describe());
        }
    }

    @Test
    void errorFallsMonotonicallyWithIterations() {
        double previous = Double.POSITIVE_INFINITY;
        for (int n = 1; n <= 11; n++) {
            double err = new GoldschmidtInverse(DOMAIN, n).maxError();
            assertTrue(err < previous, "iterations " + n + ": " + err + " not below " + previous);
            previous = err;
        }
    }

    @Test
    void depthIsIterationsPlusOneAndMatchesTheMeasuredProgram() {
        ScalarArith arith = new ScalarArith();
        assertEquals(1, new GoldschmidtInverse(DOMAIN, 1).depth(), "one iteration is the linear 2s − s²x");
        Domain wide = new Domain(1e-4, 1e4); // ρ = 1 − 2e-8: every one of 30 iterations counts
        for (int n = 2; n <= 30; n++) {
            GoldschmidtInverse g = new GoldschmidtInverse(wide, n);
            int measured = g.evaluate(arith, Traced.of(1.0)).depth();
            assertEquals(n + 1, measured, "measured depth, iterations " + n);
            assertEquals(measured, g.depth(), "depth() reports the measured depth");
            assertEquals((1 << n) - 1, g.degree());
        }
        assertEquals(22, new GoldschmidtInverse(wide, 21).depth(), "the paper: 21 iterations = depth 22");
    }

    @Test
    void stopsWhereFurtherIterationsChangeNoFloat64Value() {
        // ρ = 0.5 (the least counted): 0.5^(2^6) < 2^-53, so 6 of 22 iterations; the values are those of all 22.
        Domain narrow = new Domain(1e-3, 1.2e-3);
        GoldschmidtInverse six = new GoldschmidtInverse(narrow, 22);
        assertEquals(6, six.effectiveIterations());
        assertEquals(7, six.depth());
        assertEquals("goldschmidt-inverse(iterations=6 of 22) on " + narrow, six.describe());
        assertTrue(six.maxRelativeError() < 1e-15, "relative error " + six.maxRelativeError());
        // ... and an input well outside the narrow domain, |e| ≤ 1/2, is still exact
        double s = 2 / (1e-3 + 1.2e-3);
        for (double x : new double[] {0.6 / s, 1.45 / s}) {
            double p = six.evaluate(new ScalarArith(), Traced.of(x)).value();
            assertEquals(1 / x, p, 1e-14 / x, "x = " + x);
        }
        assertEquals(3, new GoldschmidtInverse(narrow, 3).effectiveIterations(), "never more than asked");
    }

    @Test
    void convergesBeyondTheDomainUpToLoPlusHi() {
        // |1 − s·x| < 1 for 0 < x < a + b: an input a little above hi is still inverted by the iterations the domain
        // needs (10 here: ρ = 0.935, so 0.968^1024 at x = 3.05 is far below float64's precision too)
        GoldschmidtInverse g = new GoldschmidtInverse(new Domain(0.1, 3), 14);
        assertEquals(10, g.effectiveIterations());
        double x = 3.05;
        double p = g.evaluate(new ScalarArith(), Traced.of(x)).value();
        assertEquals(1 / x, p, 1e-12);
    }

    @ParameterizedTest(name = "iterations={0}")
    @CsvSource({"8", "12", "16"})
    void figure5ErrorFallsAsEpsilonGrows(int iterations) {
        // The ε-Lipschitz denominator ε + s with s = Σx^p ∈ [0, S]: Goldschmidt on [ε, ε + S]. Paper Fig. 5.
        double sMax = 1;
        double[] epsilons = {1e-4, 1e-3, 1e-2};
        double previousAbs = Double.POSITIVE_INFINITY;
        double previousRel = Double.POSITIVE_INFINITY;
        for (double eps : epsilons) {
            GoldschmidtInverse g = new GoldschmidtInverse(new Domain(eps, eps + sMax), iterations);
            double abs = g.maxError();
            double rel = g.maxRelativeError();
            assertTrue(abs < previousAbs, "ε=" + eps + ": absolute error " + abs + " not below " + previousAbs);
            assertTrue(rel < previousRel, "ε=" + eps + ": relative error " + rel + " not below " + previousRel);
            previousAbs = abs;
            previousRel = rel;
        }
    }

    @Test
    void figure5Figures() {
        // 12 iterations on [ε, ε + 1]: relative error (1 − 2ε/(1+2ε))^4096.
        assertEquals(0.4408, new GoldschmidtInverse(new Domain(1e-4, 1 + 1e-4), 12).maxRelativeError(), 1e-3);
        assertEquals(2.79e-4, new GoldschmidtInverse(new Domain(1e-3, 1 + 1e-3), 12).maxRelativeError(), 1e-5);
        assertTrue(new GoldschmidtInverse(new Domain(1e-2, 1 + 1e-2), 12).maxRelativeError() < 1e-13);
    }
}
