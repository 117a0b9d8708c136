package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Plaintext;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The largest |value| every ciphertext (and encoded plaintext) of the engine may hold, for as long as it lives: set
 * by interval arithmetic as each primitive runs (a sum's bound is the sum of the bounds, a product's the product)
 * and tightened to the tensor's {@link ValueRange} when an operation completes. NaN: unknown (an operand whose
 * origin the engine was not told), and NaN spreads, so nothing is scaled on a guess.
 *
 * <p>A bound is <em>tight</em> when it comes from a range, or from one through operations that keep magnitudes
 * (rotations, rescaling, level drops, bootstrapping): sums of masked pieces and products of independent bounds
 * overestimate, often by far, and scaling values down on such a bound would cost them precision.
 *
 * <p>Synchronized: {@link ForkedTasks} run primitives on several threads, and a WeakHashMap's reads expunge.
 */
final class CiphertextBounds {
    private record Bound(double value, boolean tight) {}

    private final Map<Ciphertext, Bound> ciphertexts = new WeakHashMap<>();
    private final Map<Plaintext, Double> plaintexts = new WeakHashMap<>();

    synchronized double of(Ciphertext c) {
        Bound b = ciphertexts.get(c);
        return b == null ? Double.NaN : b.value();
    }

    synchronized boolean tight(Ciphertext c) {
        Bound b = ciphertexts.get(c);
        return b != null && b.tight();
    }

    synchronized double of(Plaintext p) {
        Double b = plaintexts.get(p);
        return b == null ? Double.NaN : b;
    }

    /** Records an interval-arithmetic {@code bound} for c (not tight; NaN: unknown) and returns c. */
    synchronized Ciphertext set(Ciphertext c, double bound) {
        return put(c, bound, false);
    }

    /** c holds {@code from}'s values times {@code factor}: its bound, as tight as that one. */
    synchronized Ciphertext scaled(Ciphertext c, Ciphertext from, double factor) {
        return put(c, of(from) * Math.abs(factor), tight(from));
    }

    /** c holds {@code from}'s values (a rotation, rescale or refresh of them). */
    synchronized Ciphertext same(Ciphertext c, Ciphertext from) {
        return scaled(c, from, 1);
    }

    /** The smaller of c's bound and a range's {@code bound}, tight if the range is (either may be unknown). */
    synchronized void tighten(Ciphertext c, double bound, boolean tightRange) {
        double old = of(c);
        if (Double.isNaN(bound)) {
            return;
        }
        if (Double.isNaN(old) || bound <= old) {
            put(c, bound, tightRange || tight(c) && bound == old);
        } else if (tightRange && !tight(c)) {
            // the values are within the smaller bound and, by the range, may come near it (a LayerNorm's output, whose
            // interval bound is just below the one it announces): worth a level to scale them down before a bootstrap
            put(c, old, true);
        }
    }

    synchronized Plaintext set(Plaintext p, double[] values) {
        double m = 0;
        for (double v : values) {
            m = Math.max(m, Math.abs(v));
        }
        return set(p, m);
    }

    /** Records that p encodes values of at most {@code maxAbs} in magnitude. */
    synchronized Plaintext set(Plaintext p, double maxAbs) {
        plaintexts.put(p, maxAbs);
        return p;
    }

    private synchronized Ciphertext put(Ciphertext c, double bound, boolean tight) {
        if (Double.isNaN(bound)) {
            ciphertexts.remove(c);
        } else {
            ciphertexts.put(c, new Bound(bound, tight));
        }
        return c;
    }
}
