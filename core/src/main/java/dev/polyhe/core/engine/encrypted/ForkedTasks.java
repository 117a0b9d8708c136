package dev.polyhe.core.engine.encrypted;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.ObjIntConsumer;

/**
 * The independent ciphertexts of one operator computed at once (issue 17, item 3): a linear map's output blocks, an
 * attention's shifts, a tensor's element-wise products. On a many-core server one ciphertext's operation spreads over
 * as many threads as it has limbs
 * (4 to 12 at a layer's levels), so one at a time leaves most cores idle.
 *
 * <p>The engine's state is single-threaded; a task keeps it so by deferral. What a primitive does to that state on a
 * task's thread (the accounting's records, a bootstrap partner's note) is kept in the task's log, and the logs are
 * played on the engine's thread when every task has ended, task by task in order: the engine ends in the state that
 * running the tasks one after another leaves, and makes the same decisions after. Decisions themselves stay on the
 * engine's thread: a task that would refresh a ciphertext ({@link #requireEngineThread}) stops, and it and every task
 * after it run again, in order, on the engine's thread. The loops that fork give their operands the levels they need
 * first, so this is a safety net, not a path.
 *
 * <p>Times recorded in tasks overlap; they are scaled by the batch's wall-clock time over their sum, as a group of
 * bootstraps run at once is, so the breakdown still adds up to the time the operator took.
 */
final class ForkedTasks {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ForkedTasks.class);
    private static final ThreadLocal<Log> CURRENT = new ThreadLocal<>();

    private ForkedTasks() {}

    /** A change to the engine's state, made with the share of recorded time that the batch's overlap leaves. */
    interface Effect {
        void apply(double timeShare);
    }

    /** Thrown in a task that needs a decision only the engine's thread may make. */
    static final class NeedsEngineThread extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NeedsEngineThread(String what) {
            super(what + " on a forked task's thread", null, false, false);
        }
    }

    private static final class Log {
        final List<Effect> effects = new ArrayList<>();
        long nanos;
        String stopped;
    }

    /** Whether the calling thread runs a forked task. */
    static boolean inTask() {
        return CURRENT.get() != null;
    }

    /** Applies {@code effect} now on the engine's thread; in a task, at the join. */
    static void effect(Effect effect) {
        timedEffect(0, effect);
    }

    /** {@link #effect} of a record of {@code nanos} of work, which counts towards the batch's overlap. */
    static void timedEffect(long nanos, Effect effect) {
        Log log = CURRENT.get();
        if (log == null) {
            effect.apply(1.0);
            return;
        }
        log.nanos += nanos;
        log.effects.add(effect);
    }

    /** Stops a task that would decide {@code what}: it runs again on the engine's thread. */
    static void requireEngineThread(String what) {
        if (inTask()) {
            throw new NeedsEngineThread(what);
        }
    }

    /**
     * join(task(i), i) for i = 0 … count − 1, each join on the caller and in order. Where the tasks run one after
     * another (see {@link #map}) each is joined as soon as it ends, so that at most one result is held at a time.
     */
    static <R> void forEach(int count, int concurrency, IntFunction<R> task, ObjIntConsumer<R> join) {
        if (oneAfterAnother(count, concurrency)) {
            for (int i = 0; i < count; i++) {
                join.accept(task.apply(i), i);
            }
            return;
        }
        List<R> results = map(count, concurrency, task);
        for (int i = 0; i < count; i++) {
            join.accept(results.get(i), i);
        }
    }

    /**
     * task(0) … task(count − 1), at most {@code concurrency} at once, and their results in order. One after another
     * on the caller where concurrency is 1, there is one task, or the caller is itself a task.
     */
    static <R> List<R> map(int count, int concurrency, IntFunction<R> task) {
        Object[] out = new Object[count];
        if (oneAfterAnother(count, concurrency)) {
            for (int i = 0; i < count; i++) {
                out[i] = task.apply(i);
            }
            return results(out);
        }
        Log[] logs = new Log[count];
        List<Runnable> work = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int index = i;
            work.add(() -> {
                Log log = new Log();
                logs[index] = log;
                CURRENT.set(log);
                try {
                    out[index] = task.apply(index);
                } catch (NeedsEngineThread e) {
                    log.stopped = e.getMessage();
                } finally {
                    CURRENT.remove();
                }
            });
        }
        long t0 = System.nanoTime();
        ConcurrentWork.runAll(work, concurrency, "polyhe-task");
        long wall = System.nanoTime() - t0;
        long sum = Arrays.stream(logs).mapToLong(l -> l.nanos).sum();
        double share = sum == 0 ? 1.0 : Math.min(1.0, (double) wall / sum);
        int i = 0;
        for (; i < count && logs[i].stopped == null; i++) {
            for (Effect e : logs[i].effects) {
                e.apply(share);
            }
        }
        if (i < count) {
            LOG.debug(
                    "task {} of {}: {}; it and those after it run again on the engine's thread",
                    i,
                    count,
                    logs[i].stopped);
        }
        for (; i < count; i++) {
            out[i] = task.apply(i);
        }
        return results(out);
    }

    /** Whether tasks run in order on the caller: one thread, one task, or a caller that is itself a task. */
    private static boolean oneAfterAnother(int count, int concurrency) {
        return concurrency <= 1 || count <= 1 || inTask();
    }

    @SuppressWarnings("unchecked")
    private static <R> List<R> results(Object[] out) {
        return (List<R>) Arrays.asList(out);
    }
}
