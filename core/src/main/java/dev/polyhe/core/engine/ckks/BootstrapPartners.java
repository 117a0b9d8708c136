package dev.polyhe.core.engine.ckks;

import dev.polyhe.api.he.Ciphertext;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Partners for pair bootstrapping ({@link dev.polyhe.api.he.Evaluator#bootstrapPair}): the few ciphertexts that
 * were just rescaled to level 0 or 1, and the partners already refreshed along with another ciphertext, kept
 * until their own turn comes. Goldschmidt's two sequences run out of levels together, so one of them is nearly
 * always at hand when the other needs a bootstrap. Bounded: a partner that is never asked for again is
 * forgotten after a few bootstraps.
 */
final class BootstrapPartners {
    private static final int WINDOW = 4;

    private final ArrayDeque<Ciphertext> nearlySpent = new ArrayDeque<>();
    private final Map<Ciphertext, Ciphertext> refreshed = new IdentityHashMap<>();
    private final ArrayDeque<Ciphertext> refreshedOrder = new ArrayDeque<>();

    /** Notes a ciphertext just rescaled to level ≤ 1 (others are ignored). */
    Ciphertext nearlySpent(Ciphertext c) {
        if (c.level() <= 1) {
            nearlySpent.addFirst(c);
            if (nearlySpent.size() > WINDOW) {
                nearlySpent.removeLast();
            }
        }
        return c;
    }

    /** The refreshed copy of {@code c} made along with another ciphertext, if any (handed out once). */
    Ciphertext takeRefreshed(Ciphertext c) {
        return refreshed.remove(c);
    }

    /**
     * A partner for bootstrapping {@code c}: the latest nearly spent ciphertext with the same slots and a scale
     * within 2× (a pair bootstrap reads both at one scale), or null. Both leave the nearly-spent list.
     */
    Ciphertext partnerFor(Ciphertext c) {
        nearlySpent.remove(c);
        for (Ciphertext p : nearlySpent) {
            double ratio = p.scale() / c.scale();
            if (p != c && p.slots() == c.slots() && p.level() <= 1 && ratio > 0.5 && ratio < 2
                    && !refreshed.containsKey(p)) {
                nearlySpent.remove(p);
                return p;
            }
        }
        return null;
    }

    /** Keeps the refreshed copy of a partner until it is asked for. */
    void keepRefreshed(Ciphertext partner, Ciphertext copy) {
        refreshed.put(partner, copy);
        refreshedOrder.addLast(partner);
        while (refreshedOrder.size() > WINDOW) {
            refreshed.remove(refreshedOrder.removeFirst());
        }
    }
}
