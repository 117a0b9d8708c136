package dev.polyhe.backend.cuda;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.he.conformance.HeBackendConformanceTest;

/**
 * The whole kit against ckks-cuda on insecure-test-N12, as ckks-cpu runs it; skipped, with the reason, without a GPU.
 */
class CkksCudaN12ConformanceTest extends HeBackendConformanceTest {
    private final HeBackend backend = new CkksCudaBackend(2);

    @Override
    protected HeBackend backend() {
        return backend;
    }

    @Override
    protected CkksParameters parameters() {
        return backend.preset("insecure-test-N12");
    }

    @Override
    protected CkksParameters otherParameters() {
        return backend.preset("insecure-test-N10");
    }
}
