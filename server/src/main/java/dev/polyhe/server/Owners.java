package dev.polyhe.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Which tenants own which stored upload (key sets under {@code STORE/owners/}, encrypted models under
 * {@code STORE/model-owners/}): an empty file {@code <folder>/<tenant>/<id>} per tenant that uploaded it. An upload
 * is stored once (its id is a digest of its files) but each tenant that uploads it owns it on its own, so one
 * tenant's upload never shows another that it exists.
 */
final class Owners {
    private final Path dir;

    /** @param folder the store's folder of ownership markers ({@code owners}, {@code model-owners}) */
    Owners(Path store, String folder) throws IOException {
        this.dir = Files.createDirectories(store.resolve(folder));
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

    /** The tenants that own an upload, or did (names of folders). */
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

    /** The ids of the uploads the tenant owns. */
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

    /** @return true when no tenant owns the upload any more */
    boolean remove(Tenant tenant, String id) throws IOException {
        if (tenant.seesAll()) {
            // the one party of a --no-auth server: the upload goes, whoever's markers it carried
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
