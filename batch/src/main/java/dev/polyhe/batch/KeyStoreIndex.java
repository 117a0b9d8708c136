package dev.polyhe.batch;

import dev.polyhe.core.KeySetIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The key sets of shared storage, by identity, read from their {@code keyset.properties} alone (the driver never
 * loads a key). The store is a {@code polyhe serve --store} folder (key sets under {@code keys/}), or a folder of
 * key folders ({@code polyhe keys generate} outputs or their server halves), or one key folder.
 */
final class KeyStoreIndex {
    private final Path store;
    private final Map<Path, KeySetIdentity> keySets = new LinkedHashMap<>();

    private KeyStoreIndex(Path store) {
        this.store = store;
    }

    static KeyStoreIndex scan(Path store) throws IOException {
        if (!Files.isDirectory(store)) {
            throw new BatchInputException("the key store " + store + " is not a folder");
        }
        KeyStoreIndex index = new KeyStoreIndex(store);
        List<Path> candidates = new ArrayList<>(List.of(store));
        for (Path parent : List.of(store, store.resolve("keys"))) {
            if (Files.isDirectory(parent)) {
                try (Stream<Path> s = Files.list(parent)) {
                    s.filter(Files::isDirectory).sorted().forEach(candidates::add);
                }
            }
        }
        for (Path c : candidates) {
            if (isKeyFolder(c)) {
                index.keySets.put(c, KeySetIdentity.ofKeyFolder(c));
            }
        }
        if (index.keySets.isEmpty()) {
            throw new BatchInputException("no key set in " + store + ": expected a 'polyhe serve' store (keys/<id>/), "
                    + "key folders from 'polyhe keys generate', or their server halves (keyset.properties, "
                    + "parameters.json, evaluation.keys)");
        }
        return index;
    }

    private static boolean isKeyFolder(Path dir) {
        return Files.isRegularFile(dir.resolve("keyset.properties"))
                || Files.isRegularFile(dir.resolve("server").resolve("keyset.properties"));
    }

    int size() {
        return keySets.size();
    }

    /**
     * The key folder a query of this identity runs with: the one of its key set, or for a file that does not name
     * its key set (format 2) the only one that fits.
     *
     * @throws BatchInputException naming why none fits
     */
    Path folderFor(KeySetIdentity query) {
        List<Path> fitting = new ArrayList<>();
        String reason = null;
        for (var e : keySets.entrySet()) {
            String mismatch = e.getValue().mismatch(query);
            if (mismatch == null) {
                fitting.add(e.getKey());
            } else if (reason == null) {
                reason = mismatch;
            }
        }
        // the same key set stored twice (a serve store and a copy) is one key set
        if (fitting.stream().map(keySets::get).distinct().count() == 1) {
            return fitting.get(0);
        }
        if (fitting.isEmpty()) {
            String named = query.keySetId().isEmpty() ? "" : " (key set " + query.keySetId() + ")";
            throw new BatchInputException("no key set in " + store + " fits this query" + named + ": " + reason
                    + "; put the server half of the keys it was encrypted with in the store");
        }
        throw new BatchInputException("the query does not name its key set (an older file) and " + fitting.size()
                + " key sets in " + store + " fit it: encrypt it again with 'polyhe encrypt', which names the key set");
    }
}
