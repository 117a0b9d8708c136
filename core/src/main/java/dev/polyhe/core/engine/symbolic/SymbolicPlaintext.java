package dev.polyhe.core.engine.symbolic;

import dev.polyhe.api.he.Plaintext;

/** An encoding reduced to its level, scale and slot count. */
record SymbolicPlaintext(int level, double scale, int slots, String parameterHash) implements Plaintext {
}
