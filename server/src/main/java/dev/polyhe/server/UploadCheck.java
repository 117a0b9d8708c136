package dev.polyhe.server;

import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.engine.encrypted.Packing;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Properties;

/**
 * What an upload must be before anything of it is kept: {@code keyset.properties} field by field, small files
 * small, and no entry that expands far beyond the bytes that carried it (a zip bomb). Key material is random
 * numbers modulo primes, which deflate hardly shrinks; a ratio above {@link #MAX_RATIO} is not a key set.
 */
final class UploadCheck {
    /** Expanded bytes per compressed byte an upload may reach (key material compresses by far less). */
    static final int MAX_RATIO = 16;
    /** Expansion allowed before the ratio applies, so that the small text files never trip it. */
    static final long RATIO_SLACK = 1L << 20;
    /** The largest the small files may be: a few lines of properties, a parameter set's JSON. */
    static final Map<String, Long> SMALL_FILES = Map.of(KeyFiles.KEYSET, 64L << 10, KeyFiles.PARAMETERS, 1L << 20);
    /** Fields a newer client may add that this server does not know: kept, but few and short. */
    static final int MAX_FIELDS = 32;

    static final int MAX_FIELD_CHARS = 256;

    private UploadCheck() {}

    /**
     * Each field of {@code keyset.properties} this server reads is there and of its kind, and the others (a newer
     * PolyHE's) are few and short, or the upload is refused (400).
     */
    static void keySetProperties(Properties p) {
        if (p.size() > MAX_FIELDS) {
            throw invalid(p.size() + " fields; a key set has a handful (at most " + MAX_FIELDS + " accepted)");
        }
        for (String name : p.stringPropertyNames()) {
            String v = p.getProperty(name);
            if (name.length() > MAX_FIELD_CHARS
                    || v.length() > MAX_FIELD_CHARS
                    || !(name + v).chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
                throw invalid("field '" + abbreviate(name) + "' is longer than " + MAX_FIELD_CHARS + " characters "
                        + "or not printable ASCII");
            }
        }
        word(p, "backend", "[A-Za-z0-9][A-Za-z0-9._-]{0,63}", "a backend name such as 'ckks-cpu'");
        if (p.getProperty("data-format") != null) {
            word(p, "data-format", "[A-Za-z0-9][A-Za-z0-9._-]{0,63}", "a data format name such as 'ckks-cpu'");
        }
        word(p, "parameter-hash", "[0-9A-Za-z+/=_-]{8,128}", "the parameters' hash written by 'polyhe keys generate'");
        if (p.getProperty("key-set-id") != null) {
            word(p, "key-set-id", "[0-9A-Za-z+/=_-]{8,128}", "the key set's id written by 'polyhe keys generate'");
        }
        int slots = positive(p, "packing-slots", null);
        int columns = positive(p, "columns-per-ciphertext", "1");
        try {
            new Packing(slots, columns, 1);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    private static void word(Properties p, String name, String pattern, String expected) {
        String v = p.getProperty(name);
        if (v == null || !v.trim().matches(pattern)) {
            throw invalid(
                    name + " is " + (v == null ? "missing" : "'" + abbreviate(v) + "'") + "; expected " + expected);
        }
    }

    private static int positive(Properties p, String name, String fallback) {
        String v = p.getProperty(name, fallback);
        try {
            int n = Integer.parseInt(v == null ? "" : v.trim());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw invalid(name + " is " + (v == null ? "missing" : "'" + abbreviate(v) + "'") + "; expected a positive "
                + "whole number");
    }

    private static String abbreviate(String v) {
        return v.length() > 40 ? v.substring(0, 40) + "..." : v;
    }

    private static HttpError invalid(String what) {
        return new HttpError(400, KeyFiles.KEYSET + ": " + what);
    }

    /** The most bytes an entry may expand to. */
    static long entryLimit(String name, long remainingUpload) {
        return Math.min(SMALL_FILES.getOrDefault(name, Long.MAX_VALUE), remainingUpload);
    }

    /**
     * Counts the compressed bytes the zip reader takes from the request body, so that the expansion can be held
     * against them while it happens.
     */
    static final class Counted extends FilterInputStream {
        private long bytes;

        Counted(InputStream in) {
            super(in);
        }

        long bytes() {
            return bytes;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            bytes += b >= 0 ? 1 : 0;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            bytes += Math.max(n, 0);
            return n;
        }

        @Override
        public void close() {
            // the request body stays open: a refused upload is drained before the answer
        }
    }

    /** Refuses (413) an upload whose expanded bytes run past what its compressed bytes can carry. */
    static void ratio(long expanded, Counted compressed) {
        if (expanded > RATIO_SLACK && expanded > MAX_RATIO * compressed.bytes()) {
            throw new HttpError(
                    413,
                    "the upload expands to more than " + MAX_RATIO + " times its compressed size ("
                            + expanded + " bytes from " + compressed.bytes()
                            + "): key material does not compress so; refused "
                            + "as a zip bomb");
        }
    }
}
