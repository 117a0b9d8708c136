package dev.polyhe.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The operator's file of bearer tokens: one line per token, {@code sha256-hex tenant [admin]}; '#' starts a comment.
 * Only hashes are kept, so the file leaks no credential; a token is shown once, when it is added. The server reads
 * the file again when it changes, so a revoked token stops working without a restart.
 */
public final class TokenFile {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** One line of the file. */
    public record Entry(String hash, String tenant, boolean admin) {}

    private final Path file;
    private volatile FileTime loadedAt;
    private volatile Map<String, Tenant> byHash = Map.of();

    public TokenFile(Path file) throws IOException {
        this.file = file;
        if (!Files.isRegularFile(file)) {
            throw new java.nio.file.NoSuchFileException(file + " (no tokens file: create one with 'polyhe serve token "
                    + "add --tokens " + file + " --tenant NAME')");
        }
        reload();
    }

    /** The tenant of a token, or empty for an unknown or revoked one. */
    public Optional<Tenant> authenticate(String token) {
        try {
            if (!Files.getLastModifiedTime(file).equals(loadedAt)) {
                reload();
            }
        } catch (IOException e) {
            // the file went away or cannot be read: keep the tokens last read rather than lock everyone out
        }
        return Optional.ofNullable(byHash.get(hash(token)));
    }

    private synchronized void reload() throws IOException {
        FileTime t = Files.getLastModifiedTime(file);
        Map<String, Tenant> m = new ConcurrentHashMap<>();
        for (Entry e : read(file)) {
            m.put(e.hash(), new Tenant(e.tenant(), e.admin(), false));
        }
        byHash = m;
        loadedAt = t;
    }

    /** Adds a token for a tenant and returns it: the only time it is ever shown. */
    public static String add(Path file, String tenant, boolean admin) throws IOException {
        Tenant.checkName(tenant);
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        String token = "phe_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        List<Entry> entries = Files.exists(file) ? read(file) : new ArrayList<>();
        entries.add(new Entry(hash(token), tenant, admin));
        write(file, entries);
        return token;
    }

    /** Removes every token of a tenant; returns how many. */
    public static int revoke(Path file, String tenant) throws IOException {
        List<Entry> entries = read(file);
        List<Entry> kept =
                entries.stream().filter(e -> !e.tenant().equals(tenant)).toList();
        write(file, kept);
        return entries.size() - kept.size();
    }

    public static List<Entry> read(Path file) throws IOException {
        List<Entry> entries = new ArrayList<>();
        int n = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String[] f = l.split("\\s+");
            boolean admin = f.length == 3 && f[2].equals("admin");
            if (f.length < 2 || f.length > 3 || !f[0].matches("[0-9a-f]{64}") || (f.length == 3 && !admin)) {
                throw new IOException(file + " line " + n + ": expected 'sha256-hex tenant [admin]', got '" + l + "'");
            }
            try {
                entries.add(new Entry(f[0], Tenant.checkName(f[1]), admin));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + " line " + n + ": " + e.getMessage(), e);
            }
        }
        return entries;
    }

    private static void write(Path file, List<Entry> entries) throws IOException {
        StringBuilder sb = new StringBuilder("# polyhe serve tokens: sha256(token) tenant [admin]; edit with 'polyhe "
                + "serve token add|list|revoke'\n");
        for (Entry e : entries) {
            sb.append(e.hash())
                    .append(' ')
                    .append(e.tenant())
                    .append(e.admin() ? " admin" : "")
                    .append('\n');
        }
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".tokens-", ".tmp");
        try {
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                // hashes only, yet whoever may write the file may add a tenant: the operator's alone
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            }
            Files.writeString(tmp, sb, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    static String hash(String token) {
        return HexFormat.of().formatHex(KeyStore.sha256().digest(token.getBytes(StandardCharsets.UTF_8)));
    }
}
