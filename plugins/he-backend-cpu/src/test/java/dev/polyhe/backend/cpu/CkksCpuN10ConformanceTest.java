package dev.polyhe.backend.cpu;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.he.conformance.HeBackendConformanceTest;

/** The whole kit on N = 2^10, one thread (the single-threaded code path). */
class CkksCpuN10ConformanceTest extends HeBackendConformanceTest {
    private final HeBackend backend = new CkksCpuBackend(1);

    @Override
    protected HeBackend backend() {
        return backend;
    }

    @Override
    protected CkksParameters parameters() {
        return backend.preset("insecure-test-N10");
    }

    @Override
    protected CkksParameters otherParameters() {
        return backend.preset("insecure-test-N12");
    }
}
