/**
 * The conformance kit for {@link dev.polyhe.api.he.HeBackend} implementations: extend
 * {@link dev.polyhe.he.conformance.HeBackendConformanceTest} in the backend's tests.
 */
module dev.polyhe.he.conformance {
    requires transitive dev.polyhe.api;
    requires transitive org.junit.jupiter.api;

    exports dev.polyhe.he.conformance;

    opens dev.polyhe.he.conformance to
            org.junit.platform.commons;
}
