package dev.polyhe.core.encrypted;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.HeException;
import org.junit.jupiter.api.Test;

/** Keys that cannot fit are refused before the first is made, with both figures and the way out. */
class HeapCheckTest {
    private static final long GIB = 1L << 30;

    @Test
    void keysAboveNinetyPerCentOfTheHeapAreRefusedNamingBothFigures() {
        String m = assertThrows(HeException.class, () -> EncryptedInference.requireHeap(10 * GIB, 6 * GIB))
                .getMessage();
        assertTrue(m.contains("about 10.0 GiB") && m.contains("at most 6.0 GiB"), m);
        assertTrue(m.contains("-Xmx13g") && m.contains("POLYHE_JAVA_OPTS"), m);
    }

    @Test
    void keysThatFitOrOfUnknownSizeGoAhead() {
        assertDoesNotThrow(() -> EncryptedInference.requireHeap(5 * GIB, 6 * GIB));
        assertDoesNotThrow(() -> EncryptedInference.requireHeap(-1, GIB));
    }
}
