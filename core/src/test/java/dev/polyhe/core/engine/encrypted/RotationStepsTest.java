package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The engine's rotation keys: a giant step plus a baby step reaches every rotation 1 .. P−1. */
class RotationStepsTest {
    @Test
    void everyRotationIsAGiantStepThenABabyStep() {
        for (int p = 1; p <= 4096; p <<= 1) {
            Set<Integer> keys = Packing.rotationSteps(p);
            int b = Packing.babyStep(p);
            for (int s = 1; s < p; s++) {
                int giant = s / b * b;
                int baby = s % b;
                assertTrue(giant == 0 || keys.contains(giant), "P = " + p + ", step " + s + ": giant " + giant);
                assertTrue(baby == 0 || keys.contains(baby), "P = " + p + ", step " + s + ": baby " + baby);
            }
            for (int k : keys) {
                assertTrue(k > 0 && k < p, "P = " + p + ": key step " + k);
            }
            // b + P/b − 2 keys: 2√P − 2 when log2 P is even, 2.12√P − 2 when it is odd
            assertTrue(keys.size() <= 2.13 * Math.sqrt(p), "P = " + p + ": " + keys.size() + " keys");
        }
        assertEquals(22, Packing.rotationSteps(128).size(), "15 baby steps and 7 giant steps");
    }
}
