package dev.polyhe.bench;

import dev.polyhe.api.he.HeBackend;
import java.util.ServiceLoader;

/** The HE backends the benchmarks find on their classpath. */
final class Backends {
    private Backends() {}

    /** The backend called {@code name}, or an error naming it. */
    static HeBackend named(String name) {
        return ServiceLoader.load(HeBackend.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(x -> x.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no HE backend named " + name + " on the classpath"));
    }
}
