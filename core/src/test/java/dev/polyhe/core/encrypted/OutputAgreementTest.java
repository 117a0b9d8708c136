package dev.polyhe.core.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import org.junit.jupiter.api.Test;

class OutputAgreementTest {
    @Test
    void aFlippedRowCarriesTheReferenceGapAndTheErrorsThatSwappedIt() {
        Matrix reference = Matrix.of(new double[][] {{1.0, 0.5, 0.0}, {0.20, 0.21, -1}});
        Matrix actual = Matrix.of(new double[][] {{1.0, 0.5, 0.0}, {0.23, 0.20, -1}});
        OutputAgreement a = OutputAgreement.between(actual, reference);
        assertFalse(a.samePrediction());
        assertEquals(2, a.rows());
        assertEquals(1, a.flips().size());
        OutputAgreement.Flip f = a.flips().get(0);
        assertEquals(1, f.row());
        assertEquals(1, f.referenceTop());
        assertEquals(0, f.actualTop());
        assertEquals(0.01, f.referenceGap(), 1e-12);
        assertEquals(-0.01, f.errorAtReferenceTop(), 1e-12);
        assertEquals(0.03, f.errorAtActualTop(), 1e-12);
        assertEquals(0.5, a.referenceMargins()[0], 1e-12);
        assertEquals(0.01, a.referenceMargins()[1], 1e-12);
        assertEquals(1, a.rowsWithMarginBelow(0.1));
        assertEquals(0.03, a.maxAbs(), 1e-12);
        assertEquals(0.0, a.rowMaxAbs()[0], 1e-12);
        assertEquals(0.03, a.rowMaxAbs()[1], 1e-12);
        assertEquals(1, a.worstRows(1)[0]);
        assertTrue(
                a.describePredictions(4).startsWith("same prediction at 1 of 2 positions"), a.describePredictions(4));
        assertTrue(a.describePredictions(4).contains("position 1: 1 → 0"), a.describePredictions(4));
    }

    @Test
    void combiningSamplesNumbersTheSecondSamplesRowsAfterTheFirst() {
        Matrix reference = Matrix.of(new double[][] {{0.0, 1.0}});
        OutputAgreement same = OutputAgreement.between(reference, reference);
        OutputAgreement flipped = OutputAgreement.between(Matrix.of(new double[][] {{1.0, 0.0}}), reference);
        assertTrue(same.samePrediction());
        OutputAgreement both = same.combine(flipped);
        assertEquals(2, both.rows());
        assertEquals(1, both.flips().get(0).row());
        assertEquals(2, both.referenceMargins().length);
        assertFalse(both.samePrediction());
        assertEquals(1.0, both.maxAbs(), 1e-12);
        assertEquals(1.0, both.rowMaxAbs()[1], 1e-12);
    }
}
