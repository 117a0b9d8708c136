package dev.polyhe.core.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.polyhe.api.he.HeContext;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/** A served model's weight cache is sized by the memory that holds the encoded weights. */
class WeightBudgetTest {
    /** A context that answers only deviceMemoryBytes (what the budget asks of it). */
    private static HeContext withDeviceMemory(long bytes) {
        return (HeContext) Proxy.newProxyInstance(
                HeContext.class.getClassLoader(), new Class<?>[] {HeContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("deviceMemoryBytes")) {
                        return bytes;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void onAGpuAQuarterOfItsMemory() {
        assertEquals(35L << 30, EncryptedInference.weightBudget(withDeviceMemory(140L << 30), 2L << 30, true));
    }

    @Test
    void onTheHeapTheHeapsShare() {
        assertEquals(2L << 30, EncryptedInference.weightBudget(withDeviceMemory(0), 2L << 30, true));
    }

    @Test
    void aBudgetGivenInBytesIsKeptWhateverTheDevice() {
        assertEquals(1L << 20, EncryptedInference.weightBudget(withDeviceMemory(140L << 30), 1L << 20, false));
        assertEquals(0, EncryptedInference.weightBudget(withDeviceMemory(140L << 30), 0, false), "0 turns it off");
    }
}
