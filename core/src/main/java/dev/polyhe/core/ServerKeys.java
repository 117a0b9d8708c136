package dev.polyhe.core;

import dev.polyhe.core.encrypted.KeySet;

/** What the server holds: parameters and evaluation keys, no secret. */
public final class ServerKeys implements AutoCloseable {
    private final KeySet keys;
    private final boolean owned;
    private final PolyHe owner;

    /**
     * @param owned whether closing these keys releases them (not for a client's own view)
     * @param owner the instance that releases owned keys on its close, told when they are released first (or null)
     */
    ServerKeys(KeySet keys, boolean owned, PolyHe owner) {
        this.keys = keys;
        this.owned = owned;
        this.owner = owner;
    }

    KeySet keySet() {
        return keys;
    }

    @Override
    public void close() {
        if (owned) {
            keys.close();
            if (owner != null) {
                owner.untrack(this);
            }
        }
    }
}
