package dev.polyhe.approx.taylor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.approx.Domain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TaylorExpTest {
    @ParameterizedTest(name = "degree={0}")
    @CsvSource({
        // degree, max error on [−1, 1] (≈ e/(d+1)!), depth ⌈log2(d+1)⌉
        "2, 0.219,   2",
        "4, 9.95e-3, 3",
        "8, 3.06e-6, 4",
        "12, 1.73e-10, 4",
    })
    void errorAndDepthPerDegree(int degree, double bound, int depth) {
        TaylorExp t = new TaylorExp(new Domain(-1, 1), degree);
        assertTrue(t.maxError() <= bound, t.describe() + ": " + t.maxError());
        assertEquals(depth, t.depth());
    }

    @Test
    void errorFallsWithDegreeAndGrowsWithTheRange() {
        double previous = Double.POSITIVE_INFINITY;
        for (int d = 1; d <= 12; d++) {
            double err = new TaylorExp(new Domain(-1, 1), d).maxError();
            assertTrue(err < previous, "degree " + d);
            previous = err;
        }
        // Why NEXUS subtracts the max: degree 8 is useless at −4 (Taylor gives 0.53 for e^−4 = 0.018).
        assertTrue(new TaylorExp(new Domain(-4, 0), 8).maxError() > 0.5);
    }
}
