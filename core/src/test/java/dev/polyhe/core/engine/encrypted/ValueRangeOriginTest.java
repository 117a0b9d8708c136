package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.core.engine.encrypted.ValueRange.Origin;
import org.junit.jupiter.api.Test;

/** Where a range came from survives the operations that keep it tight, and interval arithmetic says so. */
class ValueRangeOriginTest {
    @Test
    void anAnnouncedDomainStaysCalibratedThroughAPolynomialOfIt() {
        ValueRange x = ValueRange.interval(0.5, 4);
        ValueRange poly = x.times(x).map(v -> 1.5 - 0.5 * v).plus(ValueRange.constant(0.25));
        assertEquals(Origin.CALIBRATED, poly.origin());
        assertTrue(poly.tight());
    }

    @Test
    void aPlaintextsValuesAreData() {
        ValueRange w = ValueRange.of(new double[] {-0.2, 0.7}, false);
        assertEquals(Origin.DATA, w.origin());
        assertEquals(Origin.DATA, w.map(v -> 2 * v).origin());
    }

    @Test
    void mixingSourcesSumsAndWideningIsIntervalArithmetic() {
        ValueRange x = ValueRange.interval(-1, 1);
        ValueRange y = ValueRange.interval(-2, 2);
        ValueRange product = x.times(y);
        assertEquals(Origin.INTERVAL, product.origin(), "two sources: interval arithmetic");
        assertFalse(product.tight());
        assertEquals(Origin.INTERVAL, x.sumOf(8).origin());
        assertEquals(Origin.INTERVAL, product.map(v -> v * v).origin(), "what follows from a loose range stays loose");
    }

    @Test
    void aHullIsAsWeakAsItsWeakerSide() {
        ValueRange calibrated = ValueRange.interval(0, 1);
        ValueRange data = ValueRange.of(new double[] {3}, true);
        assertEquals(Origin.CALIBRATED, calibrated.union(data).origin());
        assertEquals(
                Origin.DATA, data.union(ValueRange.of(new double[] {-3}, false)).origin());
        assertEquals(Origin.INTERVAL, calibrated.union(ValueRange.loose(0, 9)).origin());
        assertEquals(
                Origin.CALIBRATED,
                TensorRanges.maskedRange(calibrated, new dev.polyhe.api.Matrix(1, 2, new double[] {0, 1}))
                        .origin(),
                "a mask keeps its operand's origin");
    }
}
