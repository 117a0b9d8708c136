package dev.polyhe.approx.chebyshev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.approx.TargetFunctions;
import dev.polyhe.api.arith.ScalarArith;
import dev.polyhe.api.arith.Traced;
import dev.polyhe.approx.polynomial.PatersonStockmeyer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChebyshevSeriesTest {
    private static final Domain SIGMOID_DOMAIN = new Domain(-8, 8);

    private static ChebyshevSeries sigmoid(int degree) {
        return ChebyshevSeries.interpolate("chebyshev", "sigmoid", TargetFunctions::sigmoid, SIGMOID_DOMAIN, degree);
    }

    @ParameterizedTest(name = "degree={0}")
    @CsvSource({
        // degree, max |p − σ| on [−8, 8], depth (⌈log2(d+1)⌉ + 1 for the map x/8)
        "7,  0.0297,  4",
        "15, 1.39e-3, 5",
        "31, 3.01e-6, 6",
        "63, 1.42e-11, 7",
    })
    void sigmoidErrorAndDepthPerDegree(int degree, double bound, int depth) {
        ChebyshevSeries s = sigmoid(degree);
        assertTrue(s.maxError() <= bound, s.describe() + ": " + s.maxError());
        assertEquals(depth, s.depth(), s.describe());
    }

    @Test
    void sigmoidErrorFallsWithDegree() {
        double previous = Double.POSITIVE_INFINITY;
        for (int degree : new int[] {3, 5, 7, 11, 15, 23, 31, 47, 63}) {
            double err = sigmoid(degree).maxError();
            assertTrue(err < previous, "degree " + degree + ": " + err + " not below " + previous);
            previous = err;
        }
    }

    @Test
    void depthIsLogDegreePlusTheMapAndMatchesTheMeasuredProgram() {
        ScalarArith arith = new ScalarArith();
        Domain[] domains = {new Domain(-1, 1), new Domain(-0.5, 0.5), new Domain(-8, 8), new Domain(-1, 2)};
        for (Domain domain : domains) {
            double slope = 2 / domain.width();
            int mapLevel = slope == Math.rint(slope) ? 0 : 1;
            for (int degree = 1; degree <= 70; degree++) {
                ChebyshevSeries s = ChebyshevSeries.interpolate("chebyshev", "exp", Math::exp, domain, degree);
                int d = s.degree();
                int expected = (int) Math.ceil(Math.log(d + 1) / Math.log(2) - 1e-12) + mapLevel;
                int measured = s.evaluate(arith, Traced.of(domain.lo())).depth();
                assertEquals(expected, measured, "degree " + d + " on " + domain);
                assertEquals(expected, s.analyticDepth(), "degree " + d + " on " + domain);
                assertEquals(measured, s.depth());
            }
        }
    }

    @Test
    void interpolatesAnyTarget() {
        ChebyshevSeries exp = ChebyshevSeries.interpolate("chebyshev", "exp", Math::exp, new Domain(-1, 2), 20);
        assertTrue(exp.maxError() < 1e-13, "exp: " + exp.maxError());
        ChebyshevSeries tanh = ChebyshevSeries.interpolate("chebyshev", "tanh", Math::tanh, new Domain(-3, 3), 41);
        assertTrue(tanh.maxError() < 1e-7, "tanh: " + tanh.maxError());
        ChebyshevSeries cubic =
                ChebyshevSeries.interpolate("chebyshev", "cubic", x -> x * x * x - 2 * x, new Domain(-2, 5), 3);
        assertTrue(cubic.maxError() < 1e-12, "a cubic is reproduced: " + cubic.maxError());
    }

    @Test
    void babyStepsSaveCiphertextProducts() {
        // Degree 63 costs well under 63 multiplications (Horner would need 63 plus the constants).
        ChebyshevSeries s = sigmoid(63);
        ScalarArith arith = new ScalarArith();
        s.evaluate(arith, Traced.of(0.3));
        assertTrue(arith.multiplications() < 63 + 33, "multiplications " + arith.multiplications());
        assertEquals(6, PatersonStockmeyer.depthOf(64), "degree 63 is depth 6 before the map");
    }

    @Test
    void oddTargetsDropTheirEvenRoundingNoise() {
        // σ(x) − ½ is odd, so on a symmetric domain the even Chebyshev terms (c_0 aside) vanish.
        double[] c = sigmoid(16).coefficients();
        for (int j = 2; j < c.length; j += 2) {
            assertEquals(0.0, c[j], "c_" + j);
        }
        assertEquals(15, sigmoid(16).degree());
    }
}
