package dev.polyhe.ckks.ring;

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
    private final int grain;
    private final ForkJoinPool pool;

    public LimbPool(int threads) {
        this(threads, 1);
    }

    /**
     * @param grain the fewest limbs one task handles: on small rings a limb is a few microseconds of work, less
     *        than handing it to another thread costs, so limbs are batched (or run on the caller)
     */
    public LimbPool(int threads, int grain) {
        if (grain < 1) {
            throw new IllegalArgumentException("grain = " + grain + "; at least 1 is needed");
        }
        this.grain = grain;
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
        if (pool == null || count <= grain) {
            for (int i = 0; i < count; i++) {
                body.accept(i);
            }
            return;
        }
        Range task = new Range(body, 0, count, grain);
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
        private final int grain;

        Range(IntConsumer body, int lo, int hi, int grain) {
            this.body = body;
            this.lo = lo;
            this.hi = hi;
            this.grain = grain;
        }

        @Override
        protected void compute() {
            if (hi - lo <= grain) {
                for (int i = lo; i < hi; i++) {
                    body.accept(i);
                }
                return;
            }
            int mid = (lo + hi) >>> 1;
            invokeAll(new Range(body, lo, mid, grain), new Range(body, mid, hi, grain));
        }
    }
}
