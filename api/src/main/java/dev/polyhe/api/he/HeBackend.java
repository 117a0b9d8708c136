package dev.polyhe.api.he;

import dev.polyhe.api.PolyHePlugin;
import java.util.List;
import java.util.Optional;

/** Service: a CKKS implementation ({@code ckks-cpu}, {@code ckks-cuda}). */
public interface HeBackend extends PolyHePlugin {
    /** @return whether it can run here, or why not ("no CUDA driver: libcuda.so.1 not found") */
    Availability availability();

    /** @return the threads (or devices) this backend computes with, for reports: 1 unless it says otherwise */
    default int parallelism() {
        return 1;
    }

    /**
     * This backend computing with {@code threads} threads (or devices), for hosts that size it themselves; a
     * backend without that choice returns itself.
     *
     * @param threads the threads (or devices) to compute with
     * @return a backend computing so
     * @throws IllegalArgumentException when {@code threads < 1}
     */
    default HeBackend withParallelism(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads = " + threads + "; at least 1 is needed");
        }
        return this;
    }

    /** @return names of the parameter presets this backend offers ({@code "N16-128"}, {@code "insecure-test-N12"}) */
    List<String> presets();

    /**
     * @param name one of {@link #presets()}
     * @return its parameters
     * @throws IllegalArgumentException naming the unknown preset and listing the known ones
     */
    CkksParameters preset(String name);

    /**
     * The 128-bit preset for a circuit of {@code levels} rescales on a ring of at least 2^{@code minLogN}: the
     * smallest whose chain holds the circuit; when none does and {@code bootstrapping} is allowed, one that
     * bootstraps. Empty when this backend has no such preset (the caller then builds a chain, or says what to
     * pass); the default recommends nothing.
     *
     * @param minLogN the least log2 of the ring degree (the slots the packing needs)
     * @param levels the rescales the circuit needs
     * @param bootstrapping whether a bootstrapping preset may serve
     * @return the preset's name, or empty
     */
    default Optional<String> recommendedPreset(int minLogN, int levels, boolean bootstrapping) {
        return Optional.empty();
    }

    /**
     * Checks a parameter literal without building anything (security included), so that a server can refuse a
     * client's file before any prime search or table. The default builds the context and closes it.
     *
     * @param parameters the parameters to check
     *
     * @throws InsecureParametersException when below 128-bit security without the explicit opt-in
     * @throws IllegalArgumentException naming what is out of range
     */
    default void validate(CkksParameters parameters) {
        open(parameters).close();
    }

    /**
     * What this backend's parameters, keys and ciphertexts are, as data: backends of one format read each other's
     * (a client's key set made with one evaluates on another, chosen by the server). The default: its own alone.
     *
     * @return the data format's name, e.g. {@code polyhe-rns-ckks}
     */
    default String dataFormat() {
        return name();
    }

    /**
     * Validates the parameters (security included) and builds the context.
     *
     * @param parameters the parameters
     * @return an open context; the caller closes it
     *
     * @throws InsecureParametersException when below 128-bit security without the explicit opt-in
     */
    HeContext open(CkksParameters parameters);
}
