package dev.polyhe.core.engine.symbolic;

import dev.polyhe.api.he.Plaintext;

/** An encoding reduced to its level, scale and slot count. Equality is identity, as with real plaintexts. */
record SymbolicPlaintext(int level, double scale, int slots, String parameterHash) implements Plaintext {
    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
