package dev.polyhe.backend.cpu;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.he.conformance.HeBackendConformanceTest;

/** The whole kit on the small insecure ring N = 2^12 (5 levels, dnum 3, two special primes), two threads. */
class CkksCpuN12ConformanceTest extends HeBackendConformanceTest {
    private final HeBackend backend = new CkksCpuBackend(2);

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
