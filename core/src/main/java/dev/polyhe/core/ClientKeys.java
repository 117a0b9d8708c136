package dev.polyhe.core;

import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.encrypted.KeySet;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The client's key set: the secret key with the evaluation keys. It never leaves the client; {@link #write}
 * writes the folder the CLI reads, and the server is given that folder without {@code secret.key}.
 */
public final class ClientKeys implements AutoCloseable {
    private final KeySet keys;
    private final ServerKeys serverView;
    private final PolyHe owner;

    /** @param owner the instance that releases these keys on its close, told when they are released first */
    ClientKeys(KeySet keys, PolyHe owner) {
        if (!keys.clientSide()) {
            throw new IllegalArgumentException("a client key set needs the secret key");
        }
        this.keys = keys;
        this.owner = owner;
        this.serverView = new ServerKeys(keys, false, null);
    }

    KeySet keySet() {
        return keys;
    }

    /** The same key set as the server uses it (evaluation keys only), for a round trip in one process. */
    public ServerKeys serverKeys() {
        return serverView;
    }

    /** log2 of the ring degree, for reports. */
    public int logN() {
        return keys.context().parameters().logN();
    }

    /** The longest input (in tokens or patches) these keys serve. */
    public int maxTokens() {
        return keys.packingSlots();
    }

    /** Writes the key folder: parameters, evaluation keys, key-set metadata and the secret key (owner-only). */
    public void write(Path dir) throws IOException {
        KeyFiles.write(keys, dir);
    }

    /** Releases the context and the keys. */
    @Override
    public void close() {
        keys.close();
        owner.untrack(this); // nothing left to release: the instance need not hold on to the keys
    }
}
