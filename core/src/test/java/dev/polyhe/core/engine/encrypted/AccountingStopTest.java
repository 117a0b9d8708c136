package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.arith.OperatorScope;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** A served job's cancel and the server's stop end an evaluation at its next operator, not at the end of a layer. */
class AccountingStopTest {

    @Test
    void aStopEndsTheEvaluationAtTheNextOperatorScopeAndLeavesTheOpenOnesClosable() {
        Accounting accounting = new Accounting();
        AtomicBoolean stop = new AtomicBoolean();
        accounting.stopWhen(stop::get);
        try (OperatorScope layer = accounting.open("layers.0")) {
            try (OperatorScope attention = accounting.open("attention")) {
                assertEquals("layers.0/attention", accounting.currentOperator());
            }
            stop.set(true);
            var e = assertThrows(CancellationException.class, () -> accounting.open("mlp"));
            assertTrue(e.getMessage().contains("stopped before layers.0/mlp"), e.getMessage());
            assertEquals("layers.0", accounting.currentOperator(), "the refused scope was never opened");
        }
        assertEquals("(top level)", accounting.currentOperator());
        assertEquals(1, accounting.operators().get("layers.0/attention").calls());
    }

    @Test
    void theStopIsAskedOnTheEngineThreadSoItCanReadItsInterruptStatus() {
        Accounting accounting = new Accounting();
        accounting.stopWhen(() -> Thread.currentThread().isInterrupted());
        Thread.currentThread().interrupt();
        try {
            assertThrows(CancellationException.class, () -> accounting.open("layers.0"));
        } finally {
            Thread.interrupted();
        }
        try (OperatorScope layer = accounting.open("layers.0")) {
            assertEquals("layers.0", accounting.currentOperator());
        }
    }
}
