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
        // numbered here: a worker's pool index is not yet assigned when the factory names it (every worker was
        // "ckks-cpu-0"), and the pool starts spare workers beyond `threads` while others wait on a join
        var workers = new java.util.concurrent.atomic.AtomicInteger();
        this.pool = threads == 1
                ? null
                : new ForkJoinPool(
                        threads,
                        p -> {
                            var worker = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
                            worker.setDaemon(true);
                            worker.setName("ckks-cpu-" + workers.getAndIncrement());
                            return worker;
                        },
                        null,
                        false);
    }

    public int threads() {
        return threads;
    }

    /**
     * The fewest threads with which independent ciphertexts run at once ({@link #both}, {@link #forEachCiphertext}):
     * below it the limbs of one ciphertext already keep every thread busy, and two ciphertexts at once only double
     * the working set the cores' caches and memory bandwidth share (measured on two cores: a Pythia-70M-shaped layer
     * ran slower with them at once).
     */
    public static final int ACROSS_CIPHERTEXTS = 4;

    /** Whether independent ciphertexts run at once on this pool (see {@link #ACROSS_CIPHERTEXTS}). */
    public boolean acrossCiphertexts() {
        return threads >= ACROSS_CIPHERTEXTS;
    }

    /**
     * Runs body(i) for i in [0, count), each i an independent ciphertext's work: at once where the pool has
     * {@link #ACROSS_CIPHERTEXTS} threads or more, else in order on the caller (each body still spreads its limbs).
     */
    public void forEachCiphertext(int count, IntConsumer body) {
        forEach(count, acrossCiphertexts() ? 1 : Integer.MAX_VALUE, body);
    }

    /** Runs body(i) for i in [0, count), in parallel when more than one thread is configured. */
    public void forEach(int count, IntConsumer body) {
        forEach(count, grain, body);
    }

    /** body(i) for i in [0, count), on the caller where there are at most {@code grain}, else split down to it. */
    private void forEach(int count, int grain, IntConsumer body) {
        if (pool == null || count <= grain) {
            for (int i = 0; i < count; i++) {
                body.accept(i);
            }
            return;
        }
        run(new Range(body, 0, count, grain));
    }

    /**
     * Runs two independent pieces of work at once, on the pool's workers, where the pool has
     * {@link #ACROSS_CIPHERTEXTS} threads or more, else one after the other on the caller. Each may itself spread its
     * limbs over the pool: where one ciphertext's operations leave cores idle (a bootstrap's two EvalMods, each with
     * fewer limbs than a many-core server has threads), two ciphertexts keep more of them busy.
     */
    public void both(Runnable first, Runnable second) {
        if (!acrossCiphertexts()) {
            first.run();
            second.run();
            return;
        }
        ForkJoinTask<?> a = ForkJoinTask.adapt(first);
        ForkJoinTask<?> b = ForkJoinTask.adapt(second);
        run(ForkJoinTask.adapt(() -> ForkJoinTask.invokeAll(a, b)));
    }

    /**
     * Runs a task in the pool (forked within it when called from one of its workers) and rethrows what it threw as
     * it was thrown: the pool hands a worker's exception back as a copy wrapping the original.
     */
    private void run(ForkJoinTask<?> task) {
        try {
            if (ForkJoinTask.getPool() == pool) {
                task.invoke();
            } else {
                pool.invoke(task);
            }
        } catch (RuntimeException | Error e) {
            Throwable original = e;
            while (original.getCause() != null && original.getCause().getClass() == original.getClass()) {
                original = original.getCause();
            }
            if (original instanceof RuntimeException r) {
                throw r;
            }
            throw (Error) original;
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
