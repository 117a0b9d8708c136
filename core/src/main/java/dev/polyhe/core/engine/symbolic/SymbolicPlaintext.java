package dev.polyhe.core.engine.symbolic;

import dev.polyhe.api.he.Plaintext;

/** An encoding reduced to its level, scale and slot count; equality is identity, as with real plaintexts. */
final class SymbolicPlaintext implements Plaintext {
    private final int level;
    private final double scale;
    private final int slots;
    private final String parameterHash;

    SymbolicPlaintext(int level, double scale, int slots, String parameterHash) {
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
}
