package dev.polyhe.backend.cpu.ring;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;
import java.util.function.IntConsumer;

/**
 * Spreads independent per-limb work over a fixed number of threads. A fork/join pool lets work started from
 * inside a worker (nested calls) run without deadlock; with one thread everything runs on the caller.
 */
public final class LimbPool implements AutoCloseable {
    private final int threads;
    private final ForkJoinPool pool;

    public LimbPool(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads = " + threads + "; at least 1 is needed");
        }
        this.threads = threads;
        this.pool = threads == 1 ? null : new ForkJoinPool(threads, p -> {
            var worker = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            worker.setDaemon(true);
            worker.setName("ckks-cpu-" + worker.getPoolIndex());
            return worker;
        }, null, false);
    }

    public int threads() {
        return threads;
    }

    /** Runs body(i) for i in [0, count), in parallel when more than one thread is configured. */
    public void forEach(int count, IntConsumer body) {
        if (pool == null || count <= 1) {
            for (int i = 0; i < count; i++) {
                body.accept(i);
            }
            return;
        }
        Range task = new Range(body, 0, count);
        if (ForkJoinTask.getPool() == pool) { // nested call from one of our workers: fork within the pool
            task.invoke();
        } else {
            pool.invoke(task);
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdown();
        }
    }

    private static final class Range extends RecursiveAction {
        private static final long serialVersionUID = 1L;
        private final transient IntConsumer body;
        private final int lo;
        private final int hi;

        Range(IntConsumer body, int lo, int hi) {
            this.body = body;
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        protected void compute() {
            if (hi - lo == 1) {
                body.accept(lo);
                return;
            }
            int mid = (lo + hi) >>> 1;
            invokeAll(new Range(body, lo, mid), new Range(body, mid, hi));
        }
    }
}
