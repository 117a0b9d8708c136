package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Plaintext;
import java.util.ArrayList;
import java.util.List;

/**
 * A sum of products rescaled once, at the end (one rescale for a whole row of a matrix product). Products not yet
 * rescaled carry scales near Δ², and two of them only add if their scales match: operands that drifted apart, or a
 * ciphertext refreshed with a scale label off Δ, give products that cannot be aligned without rescaling (at a low
 * level there is no room to adjust a scale of Δ²). Such a term, and what was summed before it, are rescaled first,
 * and the sum goes on rescaled.
 */
final class ProductSum {
    /**
     * Plaintext products held back for one backend call: a pass over each limb reads and writes the sum once for
     * them all instead of once a product, and the held plaintexts stay few (a weight diagonal is encoded per term).
     */
    static final int PLAIN_PRODUCTS_PER_CALL = 8;

    private final EncryptedEngine engine;
    private final OperatorKind op;
    private Ciphertext raw;
    private Ciphertext rescaled;
    private final List<Ciphertext> heldCiphertexts = new ArrayList<>();
    private final List<Plaintext> heldPlaintexts = new ArrayList<>();
    private int heldLevel;
    private double heldScale;

    ProductSum(EncryptedEngine engine, OperatorKind op) {
        this.engine = engine;
        this.op = op;
    }

    /** Adds a product not yet rescaled. */
    void add(Ciphertext term) {
        flush();
        addTerm(term);
    }

    private void addTerm(Ciphertext term) {
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
     * Adds x·w: held with the products of its level and scale, which are summed in one backend call ({@link
     * LeveledOps#plainProductsAdded}) together with the sum so far where that has their level and scale; else as
     * {@link #add}.
     */
    void addPlainProduct(Ciphertext x, Plaintext w) {
        int level = Math.min(x.level(), w.level());
        double scale = x.scale() * w.scale();
        if (!heldCiphertexts.isEmpty() && (level != heldLevel || !LevelsAndScales.sameScale(scale, heldScale))) {
            flush();
        }
        if (heldCiphertexts.isEmpty()) {
            heldLevel = level;
            heldScale = scale;
        }
        heldCiphertexts.add(x);
        heldPlaintexts.add(w);
        if (heldCiphertexts.size() == PLAIN_PRODUCTS_PER_CALL) {
            flush();
        }
    }

    /** The held products summed into the sum: with it in one call where it has their level and scale. */
    private void flush() {
        if (heldCiphertexts.isEmpty()) {
            return;
        }
        Ciphertext[] xs = heldCiphertexts.toArray(Ciphertext[]::new);
        Plaintext[] ws = heldPlaintexts.toArray(Plaintext[]::new);
        heldCiphertexts.clear();
        heldPlaintexts.clear();
        boolean joins = rescaled == null
                && raw != null
                && raw.level() == heldLevel
                && LevelsAndScales.sameScale(raw.scale(), heldScale);
        if (joins) {
            raw = engine.ops().plainProductsAdded(raw, xs, ws, op);
        } else {
            addTerm(engine.ops().plainProductsAdded(null, xs, ws, op));
        }
    }

    boolean isEmpty() {
        return raw == null && rescaled == null && heldCiphertexts.isEmpty();
    }

    /** The sum not yet rescaled, where no term had to be rescaled first; else null. */
    Ciphertext unrescaled() {
        flush();
        return rescaled == null ? raw : null;
    }

    /** The sum, rescaled. */
    Ciphertext result() {
        flush();
        if (isEmpty()) {
            throw new IllegalStateException("an empty sum of products");
        }
        return rescaled != null ? rescaled : engine.levels().rescale(raw, op);
    }
}
