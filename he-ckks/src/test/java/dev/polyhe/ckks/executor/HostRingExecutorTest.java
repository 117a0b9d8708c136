package dev.polyhe.ckks.executor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.ckks.ring.LimbPool;
import dev.polyhe.ckks.ring.RnsArithmetic;
import dev.polyhe.ckks.scheme.CkksPresets;
import dev.polyhe.ckks.scheme.SchemeParameters;
import org.junit.jupiter.api.Test;

/** The host executor wraps the Java ring arithmetic without copying, and refuses handles it did not make. */
class HostRingExecutorTest {
    @Test
    void handlesWrapTheArraysAndPrefixesShareThem() {
        try (LimbPool pool = new LimbPool(1, 1)) {
            SchemeParameters params = new SchemeParameters(CkksPresets.get("insecure-test-N10"), pool);
            HostRingExecutor exec = new HostRingExecutor(params.ring(), params.gadget());
            int n = params.ring().n();
            long[][] limbs = new long[3][n];
            for (int k = 0; k < 3; k++) {
                for (int c = 0; c < n; c++) {
                    limbs[k][c] = (k * 31L + c) % params.ring().modulus(k).value();
                }
            }
            RnsPoly p = exec.upload(limbs);
            assertSame(limbs, exec.download(p, 3), "no copy on the host");
            RnsPoly low = exec.prefix(p, 1);
            assertEquals(2, low.limbCount());
            assertSame(limbs[1], exec.download(low, 2)[1], "a prefix shares its limbs");
            long[][] sum = exec.download(exec.add(p, p, 2), 3);
            assertArrayEquals(new RnsArithmetic(params.ring()).add(limbs, limbs, 2)[2], sum[2]);
            assertTrue(exec.describe().contains("threads"), exec.describe());
        }
    }

    @Test
    void aHandleOfAnotherExecutorIsRefusedWithTheWayOut() {
        try (LimbPool pool = new LimbPool(1, 1)) {
            SchemeParameters params = new SchemeParameters(CkksPresets.get("insecure-test-N10"), pool);
            HostRingExecutor exec = new HostRingExecutor(params.ring(), params.gadget());
            RnsPoly foreign = () -> 1;
            ForeignPolynomialException e =
                    assertThrows(ForeignPolynomialException.class, () -> exec.add(foreign, foreign, 0));
            assertTrue(
                    e.getMessage().contains("another context") && e.getMessage().contains("serialize"), e.getMessage());
        }
    }
}
