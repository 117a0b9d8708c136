package dev.polyhe.server;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.encrypted.KeySet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Evaluation keys loaded once and shared by every job of their key set, within a memory budget: least recently used
 * out. A key set in use by a job is never closed under it; evicted, it is closed when its last job releases it.
 */
final class KeyCache implements AutoCloseable {
    private final String backend;
    private final PolyHe polyhe;
    private final KeyStore store;
    private final long budget;
    private final boolean acceptInsecure;
    private final Map<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;
    private long hits;
    private long misses;

    private static final class Entry {
        final KeySet keys;
        final long bytes;
        int users;
        boolean evicted;

        Entry(KeySet keys, long bytes) {
            this.keys = keys;
            this.bytes = bytes;
        }
    }

    /** A key set held by one job until released. */
    final class Lease implements AutoCloseable {
        private final Entry entry;

        private Lease(Entry entry) {
            this.entry = entry;
        }

        KeySet keys() {
            return entry.keys;
        }

        @Override
        public void close() {
            release(entry);
        }
    }

    /** @param backend where key sets evaluate; null: the backend each names */
    KeyCache(PolyHe polyhe, KeyStore store, long budget, boolean acceptInsecure, String backend) {
        this.polyhe = polyhe;
        this.backend = backend;
        this.store = store;
        this.budget = budget;
        this.acceptInsecure = acceptInsecure;
    }

    /** The key set, loaded now if it is not held (which may evict others). */
    synchronized Lease acquire(String id) throws IOException {
        Entry e = entries.get(id);
        if (e != null) {
            hits++;
        } else {
            misses++;
            Path dir = store.folder(id);
            long size = requireFits(id);
            makeRoom(size);
            String name = backend != null ? backend : KeyFiles.backend(dir);
            KeySet keys = KeyFiles.readServer(dir, polyhe.backend(name), acceptInsecure);
            e = new Entry(keys, size);
            entries.put(id, e);
            bytes += size;
        }
        e.users++;
        return new Lease(e);
    }

    /**
     * The key set's size in memory (about its evaluation keys' file), or 507 when it exceeds the budget: answered
     * when a job is submitted, not after it waited in the queue.
     */
    long requireFits(String id) throws IOException {
        long size = Files.size(store.folder(id).resolve(KeyFiles.EVALUATION_KEYS));
        if (size > budget) {
            throw new HttpError(
                    507,
                    "key set " + id + " needs about " + size + " bytes of memory, above this " + "server's budget of "
                            + budget + " (--memory-budget)");
        }
        return size;
    }

    private void makeRoom(long size) {
        for (Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator();
                bytes + size > budget && it.hasNext(); ) {
            Entry old = it.next().getValue();
            it.remove();
            bytes -= old.bytes;
            old.evicted = true;
            if (old.users == 0) {
                old.keys.close();
            }
        }
    }

    private synchronized void release(Entry e) {
        e.users--;
        if (e.evicted && e.users == 0) {
            e.keys.close();
        }
    }

    synchronized int size() {
        return entries.size();
    }

    synchronized long bytes() {
        return bytes;
    }

    synchronized long hits() {
        return hits;
    }

    synchronized long misses() {
        return misses;
    }

    @Override
    public synchronized void close() {
        entries.values().forEach(e -> e.keys.close());
        entries.clear();
        bytes = 0;
    }
}
