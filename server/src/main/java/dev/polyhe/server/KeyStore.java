package dev.polyhe.server;

import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.encrypted.ParameterFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The server halves of the clients' key sets, under {@code STORE/keys/<id>/}. An upload is a zip of the three files
 * of {@code KEYS/server/}, streamed to a temporary folder, checked (no secret key, every file, the size limit, the
 * parameters and the server's security policy) and moved into place in one rename: a store never holds half a key
 * set. The id is the SHA-256 of the files' digests, so the same key set uploaded twice is stored once, and a client
 * can work it out without asking ({@link #keySetId}).
 */
final class KeyStore {
    static final List<String> SERVER_FILES = List.of(KeyFiles.KEYSET, KeyFiles.PARAMETERS, KeyFiles.EVALUATION_KEYS);
    static final Pattern ID = Pattern.compile("[0-9a-f]{64}");
    private static final ZipUpload UPLOAD =
            new ZipUpload(SERVER_FILES, UploadCheck.SMALL_FILES, "a zip of KEYS/server/");

    private final StoredUploads keys;
    private final long maxUploadBytes;
    private final boolean acceptInsecure;
    /** Parses evaluation.keys as it arrives; null: checked when a job loads it. */
    private final EvaluationKeyCheck evaluationKeys;

    /** What an upload became. */
    record Stored(String id, long bytes, boolean created) {}

    /** @param evaluationKeys parses {@code evaluation.keys} as it streams, or null to leave that to the jobs */
    KeyStore(Path store, long maxUploadBytes, boolean acceptInsecure, EvaluationKeyCheck evaluationKeys)
            throws IOException {
        this.evaluationKeys = evaluationKeys;
        this.keys = new StoredUploads(store, "keys", KeyStore::notStored);
        this.maxUploadBytes = maxUploadBytes;
        this.acceptInsecure = acceptInsecure;
        // uploads a crash interrupted (key sets and models): never moved into place, so never visible; removed
        try (Stream<Path> left = Files.list(store.resolve("tmp"))) {
            left.forEach(KeyStore::deleteTree);
        }
    }

    /**
     * Streams, checks and stores an upload; nothing of a refused one is kept.
     *
     * @param expectedId the id the client worked out ({@code X-Key-Set-Id}), or null
     * @param written called with the bytes of the upload written so far (expanded); it may refuse them by throwing
     */
    Stored upload(InputStream body, String expectedId, java.util.function.LongConsumer written) throws IOException {
        Path dir = keys.receiving("upload-");
        try {
            boolean[] keysParsed = {false};
            ZipUpload.Received received = UPLOAD.receive(
                    body,
                    dir,
                    maxUploadBytes,
                    name -> {
                        if (name.equals(KeyFiles.SECRET_KEY) || name.endsWith("/" + KeyFiles.SECRET_KEY)) {
                            throw new HttpError(
                                    400,
                                    "the upload holds a secret key: never send it; upload KEYS/server/ ("
                                            + String.join(", ", SERVER_FILES) + ")");
                        }
                    },
                    written,
                    (name, entry, digests) -> {
                        if (name.equals(KeyFiles.EVALUATION_KEYS)
                                && evaluationKeys != null
                                && digests.containsKey(KeyFiles.KEYSET)
                                && digests.containsKey(KeyFiles.PARAMETERS)) {
                            // the small files came first (as 'polyhe remote keys upload' sends them): the keys are
                            // parsed as they arrive, and a malformed record stops the upload where it is met
                            keysParsed[0] = evaluationKeys.check(dir, check(dir), entry);
                            long end = entry.count();
                            long past = entry.transferTo(OutputStream.nullOutputStream());
                            if (keysParsed[0] && past > 0) {
                                throw new HttpError(
                                        400,
                                        KeyFiles.EVALUATION_KEYS + " goes on " + past + " bytes "
                                                + "past the end of its keys (" + end + " bytes); nothing was kept");
                            }
                        }
                    });
            Map<String, byte[]> digests = received.digests();
            long total = received.bytes();
            String id = contentId(digests);
            if (expectedId != null && !expectedId.equals(id)) {
                throw new HttpError(
                        400,
                        "the upload arrived as key set " + id + " but the client sent " + expectedId
                                + ": corrupted in transit; upload again");
            }
            Properties properties = check(dir);
            if (!keysParsed[0] && evaluationKeys != null) {
                // an upload whose evaluation.keys came before the small files: parsed now, before it is kept
                try (InputStream in =
                        new java.io.BufferedInputStream(Files.newInputStream(dir.resolve(KeyFiles.EVALUATION_KEYS)))) {
                    evaluationKeys.check(dir, properties, in);
                }
            }
            return new Stored(id, total, keys.place(dir, id));
        } finally {
            if (Files.exists(dir)) {
                deleteTree(dir);
            }
        }
    }

    /** Removes a stored key set: moved out of sight in one rename, then deleted. */
    void delete(String id) throws IOException {
        keys.delete(id);
    }

    /**
     * The parameters parse, name a backend and keep to the server's security policy.
     *
     * @return the upload's {@code keyset.properties}
     */
    private Properties check(Path dir) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(dir.resolve(KeyFiles.KEYSET))) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new HttpError(400, KeyFiles.KEYSET + " is malformed: " + e.getMessage());
        }
        UploadCheck.keySetProperties(p);
        try {
            var params = readParameters(dir.resolve(KeyFiles.PARAMETERS));
            if (params.security() == SecurityLevel.INSECURE_TEST && !acceptInsecure) {
                throw new HttpError(
                        400,
                        KeyFiles.PARAMETERS + " asks for security 'insecure-test'; this server "
                                + "accepts 128-bit parameters only");
            }
        } catch (HttpError e) {
            throw e;
        } catch (RuntimeException e) {
            throw new HttpError(400, KeyFiles.PARAMETERS + ": " + e.getMessage());
        }
        return p;
    }

    private static dev.polyhe.api.he.CkksParameters readParameters(Path file) {
        try {
            return ParameterFile.read(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The id of an upload (a key set, an encrypted model): SHA-256 over "name:hex(SHA-256 of the file)\n" for its
     * files in name order.
     */
    static String contentId(Map<String, byte[]> fileDigests) {
        MessageDigest sha = sha256();
        new TreeMap<>(fileDigests)
                .forEach((name, d) -> sha.update((name + ":" + HexFormat.of().formatHex(d) + "\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The id of a key folder's server half on disk (the client's side of the same computation). */
    static String keySetId(Path serverHalf) throws IOException {
        return contentId(serverHalf, SERVER_FILES);
    }

    /** The {@link #contentId} of {@code files} of a folder on disk. */
    static String contentId(Path dir, List<String> files) throws IOException {
        Map<String, byte[]> digests = new TreeMap<>();
        for (String f : files) {
            MessageDigest sha = sha256();
            try (InputStream in = new DigestInputStream(Files.newInputStream(dir.resolve(f)), sha)) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            digests.put(f, sha.digest());
        }
        return contentId(digests);
    }

    boolean contains(String id) {
        return keys.contains(id);
    }

    /** @throws HttpError 404 naming the id when no such key set is stored */
    Path folder(String id) {
        return keys.folder(id);
    }

    /** The one answer for a key set not stored and for one another tenant stored: nobody learns which. */
    static HttpError notStored(String id) {
        return new HttpError(
                404, "no key set '" + id + "' on this server; upload it first (polyhe remote keys " + "upload)");
    }

    /** The bytes a stored key set keeps on disk (0 for one not stored). */
    long bytes(String id) {
        return keys.bytes(id);
    }

    /** The bytes of the files under a folder; a file removed meanwhile counts nothing. */
    static long treeBytes(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.mapToLong(p -> {
                        try {
                            return Files.isRegularFile(p) ? Files.size(p) : 0;
                        } catch (IOException e) {
                            return 0;
                        }
                    })
                    .sum();
        } catch (IOException | UncheckedIOException e) {
            if (!Files.exists(dir)) {
                return 0; // removed meanwhile (an expired job, a deleted key set)
            }
            throw e instanceof UncheckedIOException u ? u : new UncheckedIOException((IOException) e);
        }
    }

    long count() {
        return keys.count();
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
