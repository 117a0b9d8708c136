package dev.polyhe.core.encrypted;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.InsecureParametersException;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.config.ConfigException;
import dev.polyhe.core.engine.encrypted.Packing;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;

/**
 * A key folder in two halves. {@code server/} holds what the server gets and nothing secret: {@code
 * parameters.json}, {@code evaluation.keys} and {@code keyset.properties} (backend name, data format, packing width,
 * parameter hash); it is the folder to upload or copy. Any backend of the key set's data format reads it: the
 * server chooses where it evaluates (ckks-cpu's keys on ckks-cuda, and the reverse). {@code client/} holds {@code
 * secret.key}, in a folder and a file that
 * are owner-only from the moment they exist. The client reads both halves; the server reads {@code server/} (or a
 * copy of it) and never opens a secret key. A flat folder of the four files (the layout before the halves) reads
 * as well.
 */
public final class KeyFiles {
    public static final String PARAMETERS = "parameters.json";
    public static final String EVALUATION_KEYS = "evaluation.keys";
    public static final String SECRET_KEY = "secret.key";
    public static final String KEYSET = "keyset.properties";
    public static final String SERVER_HALF = "server";
    public static final String CLIENT_HALF = "client";

    private KeyFiles() {}

    public static void write(KeySet keys, Path dir) throws IOException {
        if (!keys.clientSide()) {
            throw new IllegalStateException("only the client's key set (with its secret key) is written out");
        }
        Path server = Files.createDirectories(dir.resolve(SERVER_HALF));
        Path client = ownerOnlyFolder(dir.resolve(CLIENT_HALF));
        var serializer = keys.context().serializer();
        ParameterFile.write(keys.context().parameters(), server.resolve(PARAMETERS));
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(server.resolve(EVALUATION_KEYS)))) {
            serializer.writeEvaluationKeys(keys.evaluationKeys(), out);
        }
        try (OutputStream out = new BufferedOutputStream(ownerOnly(client.resolve(SECRET_KEY)))) {
            serializer.writeSecretKey(keys.secretKey(), out);
        }
        Properties p = new Properties();
        p.setProperty("backend", keys.backend());
        p.setProperty("data-format", keys.dataFormat());
        p.setProperty("packing-slots", Integer.toString(keys.packingSlots()));
        p.setProperty("columns-per-ciphertext", Integer.toString(keys.packing().columnsPerCiphertext()));
        p.setProperty("parameter-hash", keys.context().parameterHash());
        p.setProperty("key-set-id", keys.evaluationKeys().keySetId());
        try (OutputStream out = Files.newOutputStream(server.resolve(KEYSET))) {
            p.store(out, "PolyHE key set");
        }
    }

    /** A folder only its owner can enter, created so (an existing one is narrowed to that). */
    static Path ownerOnlyFolder(Path dir) throws IOException {
        var perms = PosixFilePermissions.fromString("rwx------");
        try {
            if (Files.isDirectory(dir)) {
                Files.setPosixFilePermissions(dir, perms);
            } else {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(perms));
            }
        } catch (UnsupportedOperationException e) {
            Files.createDirectories(dir);
        }
        return dir;
    }

    /** The folder holding the server's files: {@code dir/server} of a key folder, else {@code dir} itself. */
    public static Path serverHalf(Path dir) {
        Path half = dir.resolve(SERVER_HALF);
        return Files.isRegularFile(half.resolve(KEYSET)) ? half : dir;
    }

    /** The client's secret key file: {@code dir/client/secret.key}, or beside the server's files in a flat folder. */
    static Path secretKeyFile(Path dir) throws NoSuchFileException {
        for (Path f : new Path[] {dir.resolve(CLIENT_HALF).resolve(SECRET_KEY), dir.resolve(SECRET_KEY)}) {
            if (Files.isRegularFile(f)) {
                return f;
            }
        }
        throw new NoSuchFileException(dir.resolve(CLIENT_HALF).resolve(SECRET_KEY) + " (this folder has no secret "
                + "key: it is a server half, and only the client's key folder decrypts or encrypts)");
    }

    /**
     * A new file readable by its owner only from the moment it exists (no window in which it has the umask's
     * permissions); an existing one is replaced. On a file system without POSIX permissions the platform's apply.
     */
    static OutputStream ownerOnly(Path file) throws IOException {
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file);
        }
        return Files.newOutputStream(file, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);
    }

    /** The backend a key folder was made for. */
    public static String backend(Path dir) throws IOException {
        return properties(serverHalf(dir)).getProperty("backend");
    }

    /** A key folder's {@code keyset.properties} (of its server half), without reading a key. */
    public static Properties keySetProperties(Path dir) throws IOException {
        return properties(serverHalf(dir));
    }

    /**
     * The packing {@code keyset.properties} names.
     *
     * @throws IllegalArgumentException for a field missing, not a number, or not a power of two
     */
    public static Packing packing(Properties p) {
        return new Packing(intProperty(p, "packing-slots", null), intProperty(p, "columns-per-ciphertext", "1"), 1);
    }

    private static Properties properties(Path dir) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(dir.resolve(KEYSET))) {
            p.load(in);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(
                    dir.resolve(KEYSET) + " (not a PolyHE key folder: run 'polyhe keys generate')");
        }
        return p;
    }

    /**
     * Reads the server's view: parameters and evaluation keys, never the secret key. The parameters are the
     * client's, so the server's policy decides about security: parameters below 128 bits are refused, before anything
     * is built, unless {@code acceptInsecure} (tests).
     */
    public static KeySet readServer(Path dir, HeBackend backend, boolean acceptInsecure) throws IOException {
        return read(dir, backend, false, acceptInsecure);
    }

    /** Reads the client's view, secret key included (the client chose its parameters). */
    public static KeySet readClient(Path dir, HeBackend backend) throws IOException {
        return read(dir, backend, true, true);
    }

    private static KeySet read(Path folder, HeBackend backend, boolean withSecret, boolean acceptInsecure)
            throws IOException {
        Path dir = serverHalf(folder);
        Path secretFile = withSecret ? secretKeyFile(folder) : null;
        Properties p = properties(dir);
        String made = p.getProperty("backend");
        String format = p.getProperty("data-format", made);
        if (!backend.name().equals(made) && !backend.dataFormat().equals(format)) {
            throw new ConfigException(dir.resolve(KEYSET) + ": the key folder was made for backend '" + made
                    + "' (data format '" + format + "'); backend '" + backend.name() + "' reads '"
                    + backend.dataFormat() + "' only");
        }
        Packing packing;
        try {
            packing = packing(p);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(dir.resolve(KEYSET) + ": " + e.getMessage(), e);
        }
        CkksParameters params = ParameterFile.read(dir.resolve(PARAMETERS));
        if (params.security() == SecurityLevel.INSECURE_TEST && !acceptInsecure) {
            throw new InsecureParametersException(dir.resolve(PARAMETERS) + " asks for security 'insecure-test'; this "
                    + "server accepts 128-bit parameters only (start it with --insecure-test "
                    + "to accept test parameters)");
        }
        try {
            backend.validate(params);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(dir.resolve(PARAMETERS) + ": " + e.getMessage(), e);
        }
        HeContext ctx = backend.open(params);
        if (!ctx.parameterHash().equals(p.getProperty("parameter-hash"))) {
            ctx.close();
            throw new ConfigException(dir.resolve(PARAMETERS) + " does not match the key set's parameter hash "
                    + p.getProperty("parameter-hash") + " in " + KEYSET + " (the folder mixes files of different key "
                    + "sets)");
        }
        EvaluationKeys evk;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(dir.resolve(EVALUATION_KEYS)))) {
            evk = ctx.serializer().readEvaluationKeys(in);
        }
        SecretKey sk = null;
        if (withSecret) {
            try (InputStream in = new BufferedInputStream(Files.newInputStream(secretFile))) {
                sk = ctx.serializer().readSecretKey(in);
            }
        }
        // the files name the backend that made the key set, whichever backend evaluates it
        return new KeySet(made, ctx, sk, evk, packing, format);
    }

    private static int intProperty(Properties p, String name, String fallback) {
        String v = p.getProperty(name, fallback);
        try {
            return Integer.parseInt(v == null ? "" : v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    name + " is missing or not a number" + (v == null ? "" : ": '" + v + "'"));
        }
    }
}
