package dev.polyhe.core.engine.symbolic;

import dev.polyhe.api.he.Ciphertext;

/**
 * A ciphertext that is only its level, scale and slot count: what the engine's decisions depend on. Every
 * operation makes a new one and equality is identity, as with real ciphertexts: the engine keys what it knows about
 * a ciphertext (bounds, refreshed copies) by the object.
 */
final class SymbolicCiphertext implements Ciphertext {
    private final int level;
    private final double scale;
    private final int slots;
    private final String parameterHash;

    SymbolicCiphertext(int level, double scale, int slots, String parameterHash) {
        this.level = level;
        this.scale = scale;
        this.slots = slots;
        this.parameterHash = parameterHash;
    }

    @Override
    public int level() {
        return level;
    }

    @Override
    public double scale() {
        return scale;
    }

    @Override
    public int slots() {
        return slots;
    }

    @Override
    public String parameterHash() {
        return parameterHash;
    }

    @Override
    public String keySetId() {
        return SymbolicContext.KEY_SET;
    }

    SymbolicCiphertext with(int newLevel, double newScale) {
        return new SymbolicCiphertext(newLevel, newScale, slots, parameterHash);
    }

    /** A new ciphertext with the same level and scale (a rotation, a negation). */
    SymbolicCiphertext copy() {
        return with(level, scale);
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "symbolic ciphertext (level %d, scale 2^%.2f, %d slots)", level,
                Math.log(scale) / Math.log(2), slots);
    }
}
