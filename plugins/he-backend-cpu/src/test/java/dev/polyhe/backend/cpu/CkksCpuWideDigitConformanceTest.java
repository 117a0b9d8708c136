package dev.polyhe.backend.cpu;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.ckks.scheme.CkksPresets;
import dev.polyhe.he.conformance.HeBackendConformanceTest;
import java.util.List;

/**
 * The kit with wide key-switching digits (9 primes, dnum 2: five primes per digit, four special primes), the
 * shape of the N = 2^16 preset's gadget on a small insecure ring, so the grouped basis conversion and
 * inner product paths are exercised.
 */
class CkksCpuWideDigitConformanceTest extends HeBackendConformanceTest {
    private final HeBackend backend = new CkksCpuBackend(2);

    @Override
    protected HeBackend backend() {
        return backend;
    }

    @Override
    protected CkksParameters parameters() {
        return new CkksParameters(
                11, CkksPresets.chain(50, 40, 8), List.of(60, 60, 60, 60), 2, 40, 0, SecurityLevel.INSECURE_TEST);
    }

    @Override
    protected CkksParameters otherParameters() {
        return backend.preset("insecure-test-N10");
    }

    @Override
    protected List<Integer> powerOfTwoSteps() {
        return List.of(1, 8, 512);
    }
}
