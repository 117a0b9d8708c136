package dev.polyhe.approx.chebyshev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.approx.TargetFunctions;
import dev.polyhe.api.arith.ScalarArith;
import dev.polyhe.api.arith.Traced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GeluSigmoidTest {
    private static final Domain DOMAIN = new Domain(-8, 8);

    @Test
    void erfMatchesReferenceValues() {
        assertEquals(0.5204998778130465, TargetFunctions.erf(0.5), 1e-15);
        assertEquals(0.8427007929497149, TargetFunctions.erf(1), 1e-15);
        assertEquals(0.9953222650189527, TargetFunctions.erf(2), 1e-15);
        assertEquals(0.9999779095030014, TargetFunctions.erf(3), 1e-15);
        assertEquals(-0.9999999845827421, TargetFunctions.erf(-4), 1e-15);
        assertEquals(0.8413447460685429 * 1.0, TargetFunctions.gelu(1), 1e-15, "GELU(1) = Φ(1)");
    }

    @Test
    void sigmoidIdentityIsWithinTwoPercentOfGelu() {
        double worst = 0;
        for (double x : DOMAIN.grid(20_001)) {
            worst = Math.max(worst, Math.abs(x * TargetFunctions.sigmoid(1.702 * x) - TargetFunctions.gelu(x)));
        }
        assertEquals(0.0203, worst, 5e-4, "the identity's own error (paper App. C)");
    }

    @ParameterizedTest(name = "degree={0}")
    @CsvSource({
        // sigmoid degree, max |p − GELU| on [−8, 8] (true GELU via erf), max |p − x·σ(1.702x)|, depth
        "15, 0.0577, 0.0577, 6",
        // (the second is |x|·|p_σ − σ| on the wider sigmoid domain [−13.6, 13.6], so it grows with |x|)
        "31, 0.0195, 1.5e-3, 7",
        "63, 0.0204, 1.0e-6, 8",
    })
    void errorAgainstGeluAndAgainstTheIdentity(int degree, double geluBound, double identityBound, int depth) {
        GeluSigmoid g = new GeluSigmoid(DOMAIN, degree);
        assertTrue(g.maxError() <= geluBound, g.describe() + " vs GELU: " + g.maxError());
        double worst = 0;
        ScalarArith arith = new ScalarArith();
        for (double x : DOMAIN.grid(20_001)) {
            double p = g.evaluate(arith, Traced.of(x)).value();
            worst = Math.max(worst, Math.abs(p - x * TargetFunctions.sigmoid(1.702 * x)));
        }
        assertTrue(worst <= identityBound, g.describe() + " vs x·σ(1.702x): " + worst);
        assertEquals(depth, g.depth());
        assertEquals(g.sigmoid().depth() + 1, g.depth(), "the sigmoid, then one product with x");
    }

    @Test
    void identityErrorFallsWithDegree() {
        double previous = Double.POSITIVE_INFINITY;
        for (int degree : new int[] {7, 15, 31, 63}) {
            GeluSigmoid g = new GeluSigmoid(DOMAIN, degree);
            double err = g.sigmoid().maxError();
            assertTrue(err < previous, "degree " + degree);
            previous = err;
        }
    }
}
