package dev.polyhe.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A folder of uploads stored by content id ({@code STORE/keys/}, {@code STORE/models/}): each moved into place whole
 * by one rename from {@code STORE/tmp/}, and removed by a rename out of sight before it is deleted, so that the
 * folder never shows half of one.
 */
final class StoredUploads {
    private final Path root;
    private final Path tmp;
    private final Function<String, HttpError> notStored;

    /** @param notStored the 404 for an id not stored */
    StoredUploads(Path store, String folder, Function<String, HttpError> notStored) throws IOException {
        this.root = Files.createDirectories(store.resolve(folder));
        this.tmp = Files.createDirectories(store.resolve("tmp"));
        this.notStored = notStored;
    }

    /** A new folder under {@code STORE/tmp/} for an upload to stream into. */
    Path receiving(String prefix) throws IOException {
        return Files.createTempDirectory(tmp, prefix);
    }

    /**
     * Moves a checked upload into place.
     *
     * @return false when it was stored already (before, or by a concurrent upload of the same files)
     */
    boolean place(Path received, String id) throws IOException {
        if (Files.isDirectory(root.resolve(id))) {
            return false;
        }
        try {
            Files.move(received, root.resolve(id), StandardCopyOption.ATOMIC_MOVE);
            return true;
        } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
            return false;
        }
    }

    boolean contains(String id) {
        return id != null && KeyStore.ID.matcher(id).matches() && Files.isDirectory(root.resolve(id));
    }

    /** @throws HttpError 404 when no such upload is stored */
    Path folder(String id) {
        if (!contains(id)) {
            throw notStored.apply(id);
        }
        return root.resolve(id);
    }

    /** The bytes a stored upload keeps on disk (0 for one not stored). */
    long bytes(String id) {
        return contains(id) ? KeyStore.treeBytes(root.resolve(id)) : 0;
    }

    long count() {
        try (Stream<Path> s = Files.list(root)) {
            return s.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes a stored upload: moved out of sight in one rename, then deleted. */
    void delete(String id) throws IOException {
        if (!contains(id)) {
            return;
        }
        Path gone = tmp.resolve("deleted-" + root.getFileName() + "-" + id + "-" + System.nanoTime());
        try {
            Files.move(root.resolve(id), gone, StandardCopyOption.ATOMIC_MOVE);
        } catch (java.nio.file.NoSuchFileException e) {
            return; // a concurrent delete won
        }
        KeyStore.deleteTree(gone);
    }
}
