package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Partners for pair bootstrapping ({@link dev.polyhe.api.he.Evaluator#bootstrapPair}): the few ciphertexts that
 * were just rescaled to level 0 or 1. Goldschmidt's two sequences run out of levels together, so one of them is
 * nearly always at hand when the other needs a bootstrap (the engine keeps the partner's refreshed copy until
 * its turn comes).
 */
final class BootstrapPartners {
    private static final int WINDOW = 4;

    private final ArrayDeque<Ciphertext> nearlySpent = new ArrayDeque<>();

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

    /** Ciphertexts of one tensor that are all about to be refreshed: partners for each other at any level. */
    private final List<Ciphertext> group = new ArrayList<>();

    /** Offers {@code cts} (about to be refreshed together) as partners for each other, until {@link #endGroup}. */
    void group(List<Ciphertext> cts) {
        group.clear();
        group.addAll(cts);
    }

    void endGroup() {
        group.clear();
    }

    /**
     * A partner for bootstrapping {@code c}: another member of the current group, else the latest nearly spent
     * ciphertext; with the same slots, a scale within 2× (a pair bootstrap reads both at one scale) and accepted by
     * {@code compatible}; or null. Both leave the group and the nearly-spent list.
     */
    Ciphertext partnerFor(Ciphertext c, java.util.function.Predicate<Ciphertext> compatible) {
        Ciphertext fromGroup = groupPartnerFor(c, compatible);
        if (fromGroup != null) {
            return fromGroup;
        }
        for (Ciphertext p : nearlySpent) {
            double ratio = p.scale() / c.scale();
            if (p != c && p.slots() == c.slots() && p.level() <= 1 && ratio > 0.5 && ratio < 2 && compatible.test(p)) {
                nearlySpent.remove(p);
                return p;
            }
        }
        return null;
    }

    /** As {@link #partnerFor}, but only another member of the current group (the same tensor, refreshed together). */
    Ciphertext groupPartnerFor(Ciphertext c, java.util.function.Predicate<Ciphertext> compatible) {
        nearlySpent.remove(c);
        // every place c holds: a tensor's replicated ciphertext (a row sum's, in every block) is one ciphertext, and
        // pairing it with itself would only add a conjugation and count it twice
        group.removeIf(x -> x == c);
        for (Ciphertext p : group) {
            double ratio = p.scale() / c.scale();
            if (p.slots() == c.slots() && ratio > 0.5 && ratio < 2 && compatible.test(p)) {
                group.remove(p);
                return p;
            }
        }
        return null;
    }
}
