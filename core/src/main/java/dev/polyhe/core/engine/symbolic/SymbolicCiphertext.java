package dev.polyhe.core.engine.symbolic;

import dev.polyhe.api.he.Ciphertext;

/**
 * A ciphertext that is only its level, scale and slot count: what the engine's decisions depend on. Every
 * operation makes a new one and equality is identity, as with real ciphertexts: the engine keys what it knows about
 * a ciphertext (bounds, refreshed copies) by the object.
 */
record SymbolicCiphertext(int level, double scale, int slots, String parameterHash) implements Ciphertext {
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
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }

    @Override
    public String toString() {
        return String.format(
                java.util.Locale.ROOT,
                "symbolic ciphertext (level %d, scale 2^%.2f, %d slots)",
                level,
                Math.log(scale) / Math.log(2),
                slots);
    }
}
