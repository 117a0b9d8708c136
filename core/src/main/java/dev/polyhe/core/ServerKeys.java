package dev.polyhe.core;

import dev.polyhe.core.encrypted.KeySet;

/** What the server holds: parameters and evaluation keys, no secret. */
public final class ServerKeys implements AutoCloseable {
    private final KeySet keys;
    private final boolean owned;

    /** @param owned whether closing these keys releases them (not for a client's own view) */
    ServerKeys(KeySet keys, boolean owned) {
        this.keys = keys;
        this.owned = owned;
    }

    KeySet keySet() {
        return keys;
    }

    @Override
    public void close() {
        if (owned) {
            keys.close();
        }
    }
}
