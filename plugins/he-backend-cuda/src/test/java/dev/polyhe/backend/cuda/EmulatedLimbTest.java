package dev.polyhe.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.Availability;
import dev.polyhe.api.he.HeException;
import dev.polyhe.ckks.executor.RnsPoly;
import dev.polyhe.ckks.ring.LimbPool;
import dev.polyhe.ckks.scheme.CkksPresets;
import dev.polyhe.ckks.scheme.SchemeParameters;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link CudaLimbTest} on the {@link EmulatedDevice}: everything ckks-cuda does above the kernels (launch sequences,
 * offsets, tables, the memory pool) against the Java executor, limb by limb, on any machine.
 */
class EmulatedLimbTest extends CudaLimbTest {
    @Override
    Availability availability() {
        return Availability.yes();
    }

    /** Each operation on the next of three streams: every operand crosses streams (waits left out would fail). */
    @Override
    CudaRingExecutor executor(SchemeParameters params) {
        CudaRingExecutor exec = CudaRingExecutor.open(new EmulatedDevice(2L << 30), params, 3);
        exec.hopStreamsForTests(true);
        return exec;
    }

    /**
     * A device that runs out: held polynomials make it fail with what it needed and had; dropped ones are collected and
     * their memory reused, so the same number of uploads succeeds when nothing holds them.
     */
    @Test
    void runningOutOfDeviceMemorySaysHowMuchAndDroppedHandlesMakeRoom() {
        try (LimbPool pool = new LimbPool(1, 1)) {
            SchemeParameters p = new SchemeParameters(CkksPresets.get("insecure-test-N10"), pool);
            long limbs = p.maxLevel() + 1L;
            long polyBytes = limbs * p.ring().n() * Long.BYTES;
            EmulatedDevice device = new EmulatedDevice(64L << 20);
            CudaRingExecutor exec = CudaRingExecutor.open(device, p);
            long free = device.memoryInfo()[0];
            int fits = (int) (free / polyBytes);
            long[][] limbsOfOne = new long[(int) limbs][p.ring().n()];
            List<RnsPoly> held = new ArrayList<>();
            HeException e = assertThrows(HeException.class, () -> {
                for (int i = 0; i <= fits; i++) {
                    held.add(exec.upload(limbsOfOne));
                }
            });
            assertTrue(
                    e.getMessage().contains("out of device memory")
                            && e.getMessage().contains("needed"),
                    e.getMessage());
            held.clear();
            for (int i = 0; i < 3 * fits; i++) {
                exec.upload(limbsOfOne); // dropped at once: the pool takes them back when the device runs out
            }
            exec.close();
        }
    }
}
