package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Evaluator;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The work and the span of a run's evaluator calls (issue 51, item 5): work, the seconds of all calls added; span,
 * the seconds of the longest chain of calls each of which reads a ciphertext the one before made (the critical path);
 * work / span, how many cores the run could keep busy at best. A call's seconds are measured where the run has keys
 * and estimated by {@link CostModel} where it plans without them, so a planning run tells what a layer's parallelism
 * is without running it. Encodes are not calls of the evaluator: a weight can be encoded ahead of its product, so
 * they are work off the critical path (the breakdown counts them). Safe for the engine's forked tasks.
 */
public final class WorkSpan {
    /** A chain's end time per ciphertext, held weakly and by identity (a ciphertext's equality is not its identity). */
    private final Map<Identity, Double> finish = new HashMap<>();

    private final ReferenceQueue<Ciphertext> collected = new ReferenceQueue<>();
    private final boolean measured;
    private double work;
    private double span;
    private long calls;

    private WorkSpan(boolean measured) {
        this.measured = measured;
    }

    /**
     * {@code inner} with every call's seconds (measured, or estimated by {@link CostModel} for a ring of degree
     * {@code ringDegree} where {@code measured} is false) noted on the ciphertexts it makes, and the work and span
     * they add up to kept in the returned pair's {@link WorkSpan}; each call's estimate also goes to the operator
     * {@code accounting} (if not null) has open.
     */
    static Tracked tracking(Evaluator inner, boolean measured, int ringDegree, Accounting accounting) {
        WorkSpan ws = new WorkSpan(measured);
        Evaluator proxy = (Evaluator) Proxy.newProxyInstance(
                Evaluator.class.getClassLoader(), new Class<?>[] {Evaluator.class}, (p, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.invoke(inner, args);
                    }
                    long t0 = System.nanoTime();
                    Object result;
                    try {
                        result = method.invoke(inner, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    long nanos = System.nanoTime() - t0;
                    List<Ciphertext> inputs = ciphertexts(args);
                    double estimate = CostModel.seconds(
                            method.getName(), inputs.isEmpty() ? null : inputs.get(0), args, ringDegree);
                    if (accounting != null && estimate > 0) {
                        accounting.estimated(estimate);
                    }
                    ws.note(inputs, result, measured ? nanos / 1e9 : estimate);
                    return result;
                });
        return new Tracked(proxy, ws);
    }

    /** An evaluator and the work and span of its calls. */
    record Tracked(Evaluator evaluator, WorkSpan workSpan) {}

    private synchronized void note(List<Ciphertext> inputs, Object result, double seconds) {
        List<Ciphertext> outputs = ciphertexts(result);
        if (outputs.isEmpty()) {
            return; // concurrency() and the like: no work on ciphertexts
        }
        double start = 0;
        for (Ciphertext in : inputs) {
            Double end = finish.get(new Identity(in, null));
            if (end != null) {
                start = Math.max(start, end);
            }
        }
        double end = start + seconds;
        purge();
        for (Ciphertext out : outputs) {
            finish.put(new Identity(out, collected), end);
        }
        work += seconds;
        span = Math.max(span, end);
        calls++;
    }

    private void purge() {
        for (var r = collected.poll(); r != null; r = collected.poll()) {
            finish.remove(r);
        }
    }

    private static List<Ciphertext> ciphertexts(Object value) {
        List<Ciphertext> out = new ArrayList<>();
        collect(value, out);
        return out;
    }

    private static void collect(Object value, List<Ciphertext> out) {
        if (value instanceof Ciphertext c) {
            out.add(c);
        } else if (value instanceof Object[] xs) {
            for (Object x : xs) {
                collect(x, out);
            }
        }
    }

    /** Seconds of all calls added. */
    public synchronized double workSeconds() {
        return work;
    }

    /** Seconds of the longest chain of dependent calls: no number of cores runs the calls in less. */
    public synchronized double spanSeconds() {
        return span;
    }

    /** work / span: the most cores the run's calls could keep busy on average (1 for none). */
    public synchronized double parallelism() {
        return span <= 0 ? 1 : work / span;
    }

    public synchronized long calls() {
        return calls;
    }

    /** Whether the seconds were measured (a run with keys) or estimated ({@link CostModel}, a planning run). */
    public boolean measured() {
        return measured;
    }

    /** A weak reference compared by its referent's identity. */
    private static final class Identity extends WeakReference<Ciphertext> {
        private final int hash;

        Identity(Ciphertext c, ReferenceQueue<Ciphertext> queue) {
            super(c, queue);
            this.hash = System.identityHashCode(c);
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            return o instanceof Identity other && other.hash == hash && get() != null && get() == other.get();
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
