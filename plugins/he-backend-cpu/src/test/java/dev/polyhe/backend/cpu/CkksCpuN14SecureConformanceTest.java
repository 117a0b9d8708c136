package dev.polyhe.backend.cpu;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.he.conformance.HeBackendConformanceTest;
import java.util.List;

/**
 * The kit on the secure preset N14-128 (9 primes, dnum 9). Kept fast: a few power-of-two rotation steps
 * (small, middle and the largest) instead of all thirteen.
 */
class CkksCpuN14SecureConformanceTest extends HeBackendConformanceTest {
    private final HeBackend backend = new CkksCpuBackend(2);

    @Override
    protected HeBackend backend() {
        return backend;
    }

    @Override
    protected CkksParameters parameters() {
        return backend.preset("N14-128");
    }

    @Override
    protected CkksParameters otherParameters() {
        return backend.preset("insecure-test-N10");
    }

    @Override
    protected List<Integer> powerOfTwoSteps() {
        return List.of(1, 2, 64, 4096);
    }
}
