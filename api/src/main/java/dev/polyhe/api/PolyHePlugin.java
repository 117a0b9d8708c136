package dev.polyhe.api;

/** What every service a plugin provides has in common. */
public interface PolyHePlugin {
    /** @return the name configs select it by, unique within its kind ({@code "power-softmax"}, {@code "ckks-cpu"}) */
    String name();

    /**
     * The API version the plugin was built against. Implement it as {@code return PolyHeApi.VERSION;}: the
     * constant is inlined at compile time, so this is the build-time version, not the run-time one.
     *
     * @return the API version, e.g. {@code "1.0"}
     */
    String apiVersion();

    /** @return one line for listings */
    default String description() {
        return "";
    }
}
