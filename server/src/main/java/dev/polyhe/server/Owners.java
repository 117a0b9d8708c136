package dev.polyhe.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Which tenants own which stored key set: an empty file {@code STORE/owners/<tenant>/<id>} per tenant that uploaded
 * it. A key set is stored once (its id is a digest of public files) but each tenant that uploads it owns it on its
 * own, so one tenant's upload never shows another that the key set exists.
 */
final class KeyOwners {
    private final Path dir;

    KeyOwners(Path store) throws IOException {
        this.dir = Files.createDirectories(store.resolve("owners"));
    }

    /** @return true when the tenant did not own it before */
    boolean add(Tenant tenant, String id) throws IOException {
        Path mine = Files.createDirectories(dir.resolve(tenant.name()));
        try {
            Files.createFile(mine.resolve(id));
            return true;
        } catch (java.nio.file.FileAlreadyExistsException e) {
            return false;
        }
    }

    boolean owns(Tenant tenant, String id) {
        return tenant.seesAll() || Files.exists(dir.resolve(tenant.name()).resolve(id));
    }

    long count(Tenant tenant) {
        return ids(tenant).size();
    }

    /** The tenants that own a key set, or did (names of folders). */
    java.util.List<String> tenants() {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isDirectory)
                    .map(p -> p.getFileName().toString())
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The ids of the key sets the tenant owns. */
    java.util.List<String> ids(Tenant tenant) {
        Path mine = dir.resolve(tenant.name());
        if (!Files.isDirectory(mine)) {
            return java.util.List.of();
        }
        try (Stream<Path> s = Files.list(mine)) {
            return s.map(p -> p.getFileName().toString()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return true when no tenant owns the key set any more */
    boolean remove(Tenant tenant, String id) throws IOException {
        if (tenant.seesAll()) {
            // the one party of a --no-auth server: the key set goes, whoever's markers it carried
            try (Stream<Path> tenants = Files.list(dir)) {
                for (Path t : (Iterable<Path>) tenants::iterator) {
                    Files.deleteIfExists(t.resolve(id));
                }
            }
            return true;
        }
        Files.deleteIfExists(dir.resolve(tenant.name()).resolve(id));
        try (Stream<Path> tenants = Files.list(dir)) {
            return tenants.noneMatch(t -> Files.exists(t.resolve(id)));
        }
    }
}
