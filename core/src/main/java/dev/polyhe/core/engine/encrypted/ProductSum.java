package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Plaintext;

/**
 * A sum of products rescaled once, at the end (one rescale for a whole row of a matrix product). Products not yet
 * rescaled carry scales near Δ², and two of them only add if their scales match: operands that drifted apart, or a
 * ciphertext refreshed with a scale label off Δ, give products that cannot be aligned without rescaling (at a low
 * level there is no room to adjust a scale of Δ²). Such a term, and what was summed before it, are rescaled first,
 * and the sum goes on rescaled.
 */
final class ProductSum {
    private final EncryptedEngine engine;
    private final OperatorKind op;
    private Ciphertext raw;
    private Ciphertext rescaled;

    ProductSum(EncryptedEngine engine, OperatorKind op) {
        this.engine = engine;
        this.op = op;
    }

    /** Adds a product not yet rescaled. */
    void add(Ciphertext term) {
        if (rescaled == null && (raw == null || LevelsAndScales.sameScale(raw.scale(), term.scale()))) {
            raw = raw == null ? term : engine.ops().add(raw, term, op);
            return;
        }
        if (rescaled == null) {
            rescaled = engine.levels().rescale(raw, op);
            raw = null;
        }
        rescaled = engine.ops().add(rescaled, engine.levels().rescale(term, op), op);
    }

    /**
     * Adds x·w: where the sum so far has the product's level and scale, in one backend call that multiplies and
     * adds in a single pass (no product polynomial of its own); else as {@link #add}.
     */
    void addPlainProduct(Ciphertext x, Plaintext w) {
        if (rescaled == null
                && raw != null
                && raw.level() == Math.min(x.level(), w.level())
                && LevelsAndScales.sameScale(raw.scale(), x.scale() * w.scale())) {
            raw = engine.ops().plainProductAdded(raw, x, w, op);
            return;
        }
        add(engine.ops().plainProductRaw(x, w, op));
    }

    boolean isEmpty() {
        return raw == null && rescaled == null;
    }

    /** The sum not yet rescaled, where no term had to be rescaled first; else null. */
    Ciphertext unrescaled() {
        return rescaled == null ? raw : null;
    }

    /** The sum, rescaled. */
    Ciphertext result() {
        if (isEmpty()) {
            throw new IllegalStateException("an empty sum of products");
        }
        return rescaled != null ? rescaled : engine.levels().rescale(raw, op);
    }
}
