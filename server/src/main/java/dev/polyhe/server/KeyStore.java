package dev.polyhe.server;

import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.encrypted.ParameterFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;

/**
 * The server halves of the clients' key sets, under {@code STORE/keys/<id>/}. An upload is a zip of the three files
 * of {@code KEYS/server/}, streamed to a temporary folder, checked (no secret key, every file, the size limit, the
 * parameters and the server's security policy) and moved into place in one rename: a store never holds half a key
 * set. The id is the SHA-256 of the files' digests, so the same key set uploaded twice is stored once, and a client
 * can work it out without asking ({@link #keySetId}).
 */
final class KeyStore {
    static final List<String> SERVER_FILES = List.of(KeyFiles.KEYSET, KeyFiles.PARAMETERS, KeyFiles.EVALUATION_KEYS);
    private static final Pattern ID = Pattern.compile("[0-9a-f]{64}");

    private final Path keys;
    private final Path tmp;
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
        this.keys = Files.createDirectories(store.resolve("keys"));
        this.tmp = Files.createDirectories(store.resolve("tmp"));
        this.maxUploadBytes = maxUploadBytes;
        this.acceptInsecure = acceptInsecure;
        // uploads a crash interrupted: never moved into place, so never visible; removed at start
        try (Stream<Path> left = Files.list(tmp)) {
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
        Path dir = Files.createTempDirectory(tmp, "upload-");
        try {
            Map<String, byte[]> digests = new TreeMap<>();
            long total = 0;
            boolean keysParsed = false;
            UploadCheck.Counted compressed = new UploadCheck.Counted(body);
            try (ZipInputStream zip = new ZipInputStream(compressed)) {
                for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
                    String name = e.getName();
                    if (name.equals(KeyFiles.SECRET_KEY) || name.endsWith("/" + KeyFiles.SECRET_KEY)) {
                        throw new HttpError(
                                400,
                                "the upload holds a secret key: never send it; upload KEYS/server/ " + "("
                                        + String.join(", ", SERVER_FILES) + ")");
                    }
                    if (!SERVER_FILES.contains(name)) {
                        throw new HttpError(
                                400,
                                "unexpected entry '" + name + "' in the upload; expected exactly "
                                        + String.join(", ", SERVER_FILES));
                    }
                    if (digests.containsKey(name)) {
                        throw new HttpError(400, "the upload holds '" + name + "' twice");
                    }
                    MessageDigest sha = sha256();
                    long limit = UploadCheck.entryLimit(name, maxUploadBytes - total);
                    long before = total;
                    try (OutputStream out = Files.newOutputStream(dir.resolve(name))) {
                        TeeInput entry = new TeeInput(
                                new DigestInputStream(zip, sha),
                                out,
                                limit,
                                limit < maxUploadBytes - before ? name : "the upload",
                                limit < maxUploadBytes - before ? limit : maxUploadBytes,
                                n -> {
                                    UploadCheck.ratio(before + n, compressed);
                                    written.accept(before + n);
                                });
                        if (name.equals(KeyFiles.EVALUATION_KEYS)
                                && evaluationKeys != null
                                && digests.containsKey(KeyFiles.KEYSET)
                                && digests.containsKey(KeyFiles.PARAMETERS)) {
                            // the small files came first (as 'polyhe remote keys upload' sends them): the keys are
                            // parsed as they arrive, and a malformed record stops the upload where it is met
                            keysParsed = evaluationKeys.check(dir, check(dir), entry);
                            long end = entry.count();
                            long past = entry.transferTo(OutputStream.nullOutputStream());
                            if (keysParsed && past > 0) {
                                throw new HttpError(
                                        400,
                                        KeyFiles.EVALUATION_KEYS + " goes on " + past + " bytes "
                                                + "past the end of its keys (" + end + " bytes); nothing was kept");
                            }
                        } else {
                            entry.transferTo(OutputStream.nullOutputStream());
                        }
                        total += entry.count();
                    }
                    digests.put(name, sha.digest());
                }
            } catch (ZipException | java.io.EOFException e) {
                throw new HttpError(400, "the upload is truncated or not a zip of KEYS/server/: " + e.getMessage());
            }
            for (String f : SERVER_FILES) {
                if (!digests.containsKey(f)) {
                    throw new HttpError(
                            400, "the upload has no " + f + "; expected " + String.join(", ", SERVER_FILES));
                }
            }
            String id = keySetId(digests);
            if (expectedId != null && !expectedId.equals(id)) {
                throw new HttpError(
                        400,
                        "the upload arrived as key set " + id + " but the client sent " + expectedId
                                + ": corrupted in transit; upload again");
            }
            Properties properties = check(dir);
            if (!keysParsed && evaluationKeys != null) {
                // an upload whose evaluation.keys came before the small files: parsed now, before it is kept
                try (InputStream in =
                        new java.io.BufferedInputStream(Files.newInputStream(dir.resolve(KeyFiles.EVALUATION_KEYS)))) {
                    evaluationKeys.check(dir, properties, in);
                }
            }
            Path target = keys.resolve(id);
            if (Files.isDirectory(target)) {
                return new Stored(id, total, false);
            }
            try {
                Files.move(dir, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
                return new Stored(id, total, false); // a concurrent upload of the same key set won
            }
            return new Stored(id, total, true);
        } finally {
            if (Files.exists(dir)) {
                deleteTree(dir);
            }
        }
    }

    /** Removes a stored key set: moved out of sight in one rename, then deleted. */
    void delete(String id) throws IOException {
        if (!contains(id)) {
            return;
        }
        Path gone = tmp.resolve("deleted-" + id + "-" + System.nanoTime());
        try {
            Files.move(keys.resolve(id), gone, StandardCopyOption.ATOMIC_MOVE);
        } catch (java.nio.file.NoSuchFileException e) {
            return; // a concurrent delete won
        }
        deleteTree(gone);
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

    /** The id of a key set: SHA-256 over "name:hex(SHA-256 of the file)\n" for the three files in name order. */
    static String keySetId(Map<String, byte[]> fileDigests) {
        MessageDigest sha = sha256();
        new TreeMap<>(fileDigests)
                .forEach((name, d) -> sha.update((name + ":" + HexFormat.of().formatHex(d) + "\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The id of a key folder's server half on disk (the client's side of the same computation). */
    static String keySetId(Path serverHalf) throws IOException {
        Map<String, byte[]> digests = new TreeMap<>();
        for (String f : SERVER_FILES) {
            MessageDigest sha = sha256();
            try (InputStream in = new DigestInputStream(Files.newInputStream(serverHalf.resolve(f)), sha)) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            digests.put(f, sha.digest());
        }
        return keySetId(digests);
    }

    boolean contains(String id) {
        return ID.matcher(id).matches() && Files.isDirectory(keys.resolve(id));
    }

    /** @throws HttpError 404 naming the id when no such key set is stored */
    Path folder(String id) {
        if (!contains(id)) {
            throw notStored(id);
        }
        return keys.resolve(id);
    }

    /** The one answer for a key set not stored and for one another tenant stored: nobody learns which. */
    static HttpError notStored(String id) {
        return new HttpError(
                404, "no key set '" + id + "' on this server; upload it first (polyhe remote keys " + "upload)");
    }

    /** The bytes a stored key set keeps on disk (0 for one not stored). */
    long bytes(String id) {
        return contains(id) ? treeBytes(keys.resolve(id)) : 0;
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
        try (Stream<Path> s = Files.list(keys)) {
            return s.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
