package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Forked tasks run at once, and the engine's state sees their effects as if they had run one after another: in task
 * order, whatever order they end in, and a task that needs the engine's thread runs again there with those after it.
 */
class ForkedTasksTest {

    @Test
    void effectsArePlayedInTaskOrderOnTheCallersThread() throws Exception {
        List<String> played = new ArrayList<>(); // not synchronized: only the caller may touch it
        Thread caller = Thread.currentThread();
        Set<String> threads = ConcurrentHashMap.newKeySet();
        CountDownLatch lastDone = new CountDownLatch(1);
        List<Integer> results = ForkedTasks.map(4, 4, i -> {
            assertTrue(ForkedTasks.inTask());
            threads.add(Thread.currentThread().getName());
            if (i == 0) {
                // task 0 ends after task 3: its effects are still played first
                awaitQuietly(lastDone);
            }
            ForkedTasks.effect(share -> {
                assertEquals(caller, Thread.currentThread(), "effects are played on the caller's thread");
                played.add("a" + i);
            });
            ForkedTasks.timedEffect(1_000, share -> played.add("b" + i));
            if (i == 3) {
                lastDone.countDown();
            }
            return i * i;
        });
        assertEquals(List.of(0, 1, 4, 9), results);
        assertEquals(List.of("a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3"), played);
        assertFalse(threads.contains(caller.getName()), "the tasks ran on other threads: " + threads);
        assertFalse(ForkedTasks.inTask());
    }

    @Test
    void overlappingTimesAreScaledToTheWallClock() {
        long[] recorded = {0};
        long t0 = System.nanoTime();
        ForkedTasks.map(4, 4, i -> {
            long start = System.nanoTime();
            sleep(40);
            long took = System.nanoTime() - start;
            ForkedTasks.timedEffect(took, share -> recorded[0] += Math.round(took * share));
            return null;
        });
        long wall = System.nanoTime() - t0;
        assertTrue(recorded[0] <= wall, "recorded " + recorded[0] + " ns of a batch that took " + wall + " ns");
        assertTrue(recorded[0] >= 35_000_000L, "the recorded time is the batch's, not nothing: " + recorded[0]);
    }

    @Test
    void aTaskThatNeedsTheEnginesThreadRunsAgainThereWithThoseAfterIt() {
        List<String> played = new ArrayList<>();
        Thread caller = Thread.currentThread();
        List<String> results = ForkedTasks.map(5, 4, i -> {
            String where = Thread.currentThread() == caller ? "caller" : "task";
            ForkedTasks.effect(share -> played.add(i + "@" + where));
            if (i == 2) {
                ForkedTasks.requireEngineThread("a refresh");
            }
            return where;
        });
        assertEquals(List.of("task", "task", "caller", "caller", "caller"), results);
        assertEquals(
                List.of("0@task", "1@task", "2@caller", "3@caller", "4@caller"),
                played,
                "effects of the tasks run twice are played once, from their run on the caller");
    }

    @Test
    void oneThreadOrOneTaskRunsOnTheCallerAndJoinsEachAtOnce() {
        Thread caller = Thread.currentThread();
        List<String> order = new ArrayList<>();
        ForkedTasks.forEach(
                3,
                1,
                i -> {
                    assertEquals(caller, Thread.currentThread());
                    assertFalse(ForkedTasks.inTask());
                    order.add("task" + i);
                    return i;
                },
                (r, i) -> order.add("join" + r));
        assertEquals(List.of("task0", "join0", "task1", "join1", "task2", "join2"), order);
        ForkedTasks.requireEngineThread("anything"); // no task: allowed
    }

    @Test
    void aTasksFailureIsThrownAsItWasAfterAllEnd() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> ForkedTasks.map(3, 3, i -> {
                    if (i == 1) {
                        throw new IllegalArgumentException("bad block 1");
                    }
                    return i;
                }));
        assertEquals("bad block 1", e.getMessage());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
