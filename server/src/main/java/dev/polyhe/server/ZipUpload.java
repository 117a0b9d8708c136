package dev.polyhe.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;

/**
 * A zip upload streamed into a folder of its own, entry by entry: only the names expected, each once, small files
 * small, the whole within the server's limit, no entry expanding far beyond the bytes that carried it (a zip bomb),
 * and a SHA-256 of each file as it arrives. Whatever is refused stops the upload where it is met (the caller removes
 * the folder).
 */
final class ZipUpload {
    /** Reads one entry's bytes as they arrive (every byte read is kept); the default drains it. */
    interface EntryReader {
        /** @param digests the entries received before this one, by name */
        void read(String name, TeeInput entry, Map<String, byte[]> digests) throws IOException;
    }

    /** What arrived: each file's SHA-256 by name, and the bytes written (expanded). */
    record Received(Map<String, byte[]> digests, long bytes) {}

    private final List<String> expected;
    private final Map<String, Long> smallFiles;
    private final String what;

    /**
     * @param expected the entries an upload holds, each exactly once
     * @param smallFiles the largest each small entry may be
     * @param what the upload as a refusal names it ("a zip of KEYS/server/")
     */
    ZipUpload(List<String> expected, Map<String, Long> smallFiles, String what) {
        this.expected = expected;
        this.smallFiles = smallFiles;
        this.what = what;
    }

    /**
     * @param screen called with each entry's name first; it may refuse it by throwing (a secret key)
     * @param written called with the bytes written so far; it may refuse them by throwing (a quota)
     */
    Received receive(
            InputStream body,
            Path dir,
            long maxBytes,
            java.util.function.Consumer<String> screen,
            LongConsumer written,
            EntryReader reader)
            throws IOException {
        Map<String, byte[]> digests = new TreeMap<>();
        long total = 0;
        UploadCheck.Counted compressed = new UploadCheck.Counted(body);
        try (ZipInputStream zip = new ZipInputStream(compressed)) {
            for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
                String name = e.getName();
                screen.accept(name);
                if (!expected.contains(name)) {
                    throw new HttpError(
                            400,
                            "unexpected entry '" + name + "' in the upload; expected exactly "
                                    + String.join(", ", expected));
                }
                if (digests.containsKey(name)) {
                    throw new HttpError(400, "the upload holds '" + name + "' twice");
                }
                MessageDigest sha = KeyStore.sha256();
                long limit = Math.min(smallFiles.getOrDefault(name, Long.MAX_VALUE), maxBytes - total);
                long before = total;
                boolean small = limit < maxBytes - before;
                try (OutputStream out = Files.newOutputStream(dir.resolve(name))) {
                    TeeInput entry = new TeeInput(
                            new DigestInputStream(zip, sha),
                            out,
                            limit,
                            small ? name : "the upload",
                            small ? limit : maxBytes,
                            n -> {
                                UploadCheck.ratio(before + n, compressed);
                                written.accept(before + n);
                            });
                    reader.read(name, entry, digests);
                    entry.transferTo(OutputStream.nullOutputStream());
                    total += entry.count();
                }
                digests.put(name, sha.digest());
            }
        } catch (ZipException | java.io.EOFException e) {
            throw new HttpError(400, "the upload is truncated or not " + what + ": " + e.getMessage());
        }
        for (String f : expected) {
            if (!digests.containsKey(f)) {
                throw new HttpError(400, "the upload has no " + f + "; expected " + String.join(", ", expected));
            }
        }
        return new Received(digests, total);
    }
}
