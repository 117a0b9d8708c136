package dev.polyhe.core.engine.encrypted;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the work of independent ciphertexts at once (issue 17: parallelism across ciphertexts beside the backend's
 * across limbs): the bootstraps of a group ({@link EncryptedEngine}'s refreshes) and the tasks of {@link ForkedTasks}.
 * Threads are started for one batch and end with it: each piece is a bootstrap, an attention shift's products and
 * rotations or at least a ciphertext product (tens of milliseconds and up), so starting them costs nothing that shows.
 */
final class ConcurrentWork {
    private static final AtomicInteger THREADS = new AtomicInteger();

    private ConcurrentWork() {}

    /**
     * Runs every piece of work, at most {@code concurrency} at once (in order on the caller when 1 or when there is one
     * piece), and returns when all have ended; the first failure, as thrown, after all have ended.
     */
    static void runAll(List<Runnable> work, int concurrency, String threadName) {
        if (concurrency <= 1 || work.size() <= 1) {
            work.forEach(Runnable::run);
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(concurrency, work.size()), r -> {
            Thread t = new Thread(r, threadName + "-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> running = new ArrayList<>();
            for (Runnable w : work) {
                running.add(pool.submit(w));
            }
            RuntimeException failure = null;
            Error error = null;
            for (Future<?> f : running) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Error err && error == null) {
                        error = err;
                    } else if (e.getCause() instanceof RuntimeException r && failure == null) {
                        failure = r;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    running.forEach(r -> r.cancel(true));
                    throw new IllegalStateException("interrupted while " + threadName + " threads ran", e);
                }
            }
            if (error != null) {
                throw error;
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
