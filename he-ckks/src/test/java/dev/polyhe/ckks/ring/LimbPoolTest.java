package dev.polyhe.ckks.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

class LimbPoolTest {
    @Test
    void bothRunsItsTwoPiecesAtOnceWithEnoughThreads() {
        try (LimbPool pool = new LimbPool(LimbPool.ACROSS_CIPHERTEXTS)) {
            // each piece waits for the other: this returns only if they run at the same time
            CyclicBarrier meet = new CyclicBarrier(2);
            Runnable await = () -> {
                try {
                    meet.await(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError("the two pieces did not run at once", e);
                }
            };
            pool.both(await, await);
        }
    }

    @Test
    void bothWithFewThreadsRunsTheFirstThenTheSecondOnTheCaller() {
        try (LimbPool pool = new LimbPool(LimbPool.ACROSS_CIPHERTEXTS - 1)) {
            List<String> order = new ArrayList<>();
            Thread caller = Thread.currentThread();
            pool.both(
                    () -> order.add("first:" + (Thread.currentThread() == caller)),
                    () -> order.add("second:" + (Thread.currentThread() == caller)));
            assertEquals(List.of("first:true", "second:true"), order);
        }
    }

    @Test
    void limbWorkInsideBothAndBothInsideLimbWorkComplete() {
        try (LimbPool pool = new LimbPool(LimbPool.ACROSS_CIPHERTEXTS)) {
            AtomicLongArray sums = new AtomicLongArray(4);
            pool.forEach(
                    2,
                    outer -> pool.both(
                            () -> pool.forEach(100, i -> sums.addAndGet(2 * outer, i)),
                            () -> pool.forEach(100, i -> sums.addAndGet(2 * outer + 1, 2L * i))));
            long[] got = new long[4];
            for (int i = 0; i < 4; i++) {
                got[i] = sums.get(i);
            }
            assertArrayEquals(new long[] {4950, 9900, 4950, 9900}, got);
        }
    }

    @Test
    void anExceptionInEitherPieceReachesTheCaller() {
        try (LimbPool pool = new LimbPool(LimbPool.ACROSS_CIPHERTEXTS)) {
            IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalStateException.class,
                    () -> pool.both(() -> {}, () -> {
                        throw new IllegalStateException("second failed");
                    }));
            assertEquals("second failed", e.getMessage());
        }
    }
}
