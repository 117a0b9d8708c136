/** PolyHE core: plugin registry, Guice wiring, config, engines and the embedding facade. */
@SuppressWarnings("module") // the qualified exports name the launcher, built after core
module dev.polyhe.core {
    requires transitive dev.polyhe.api;
    requires com.google.guice;
    requires jakarta.inject;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.yaml;
    requires org.slf4j;
    requires java.management;

    // What a host needs: the façade (PolyHe, PrivateInference and its keys), configs, plugins, the plaintext
    // engine and tensor interfaces, inference and benchmarks.
    exports dev.polyhe.core;
    exports dev.polyhe.core.engine;
    exports dev.polyhe.core.plugin;
    exports dev.polyhe.core.config;
    exports dev.polyhe.core.bench;
    exports dev.polyhe.core.inference;
    // Engine internals, for the launcher (and the server) alone: the encrypted engine, its traces and reports, key and
    // ciphertext files.
    exports dev.polyhe.core.engine.encrypted to
            dev.polyhe.launcher,
            dev.polyhe.server;
    exports dev.polyhe.core.engine.trace to
            dev.polyhe.launcher;
    exports dev.polyhe.core.report to
            dev.polyhe.launcher;
    exports dev.polyhe.core.encrypted to
            dev.polyhe.launcher,
            dev.polyhe.server;

    opens dev.polyhe.core.config to
            com.fasterxml.jackson.databind;
    opens dev.polyhe.core.inference to
            com.fasterxml.jackson.databind;
    opens dev.polyhe.core.inject to
            com.google.guice;
    opens dev.polyhe.core to
            com.google.guice;

    uses dev.polyhe.api.he.HeBackend;
    uses dev.polyhe.api.approx.PolynomialApproximator;
    uses dev.polyhe.api.attention.AttentionMechanism;
    uses dev.polyhe.api.model.ModelArchitecture;
}
