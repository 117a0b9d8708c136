package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Column blocks: their width, and the rotation keys the blocked matmul, row sums and unpacking use. */
class PackingTest {
    @Test
    void blocksAreAsWideAsTheWidestActivationAndTheRingAllow() {
        assertEquals(256, Packing.blocks(8, 256, 32768).columnsPerCiphertext(), "the FFN width");
        assertEquals(256, Packing.blocks(8, 200, 32768).columnsPerCiphertext(), "rounded up to a power of two");
        assertEquals(64, Packing.blocks(8, 256, 512).columnsPerCiphertext(), "the ring");
        assertEquals(1, Packing.blocks(8, 1, 32768).columnsPerCiphertext(), "one column asked for");
        assertEquals(1, Packing.blocks(512, 256, 512).columnsPerCiphertext(), "no room for two");
        assertEquals(Set.of(2048), Packing.blocks(8, 256, 32768).ciphertextSlots());
        assertThrows(IllegalArgumentException.class, () -> new Packing(12, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Packing(8, 3, 1));
        assertThrows(IllegalArgumentException.class, () -> new Packing(8, 1, 16));
    }

    @Test
    void everyColumnShiftIsABabyStepThenAGiantStepAndRowSumsAndUnpackingAreCovered() {
        for (int b = 2; b <= 1024; b <<= 1) {
            int p = 8;
            Set<Integer> keys = new Packing(p, b, 1).rotationSteps();
            int baby = Math.min(Packing.babyStep(b), b);
            for (int d = 1; d < b; d++) {
                int a = d % baby;
                int g = d - a;
                assertTrue(a == 0 || keys.contains(a * p), "B = " + b + ", shift " + d + ": baby " + a);
                assertTrue(g == 0 || keys.contains(g * p), "B = " + b + ", shift " + d + ": giant " + g);
            }
            for (int k = 1; k < b; k <<= 1) {
                assertTrue(keys.contains(k * p), "B = " + b + ": row sums and unpacking rotate by " + k + "·P");
            }
            assertTrue(
                    keys.size() <= Packing.rotationSteps(p).size() + 2 * Math.sqrt(2 * b),
                    "about 2√B keys, got " + keys.size() + " for B = " + b);
        }
    }
}
