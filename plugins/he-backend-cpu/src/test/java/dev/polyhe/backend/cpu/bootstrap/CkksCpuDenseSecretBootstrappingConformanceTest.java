package dev.polyhe.backend.cpu.bootstrap;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.backend.cpu.CkksCpuBackend;
import dev.polyhe.he.conformance.BootstrappingConformanceTest;

/**
 * The bootstrapping kit on insecure-test-boot-dense-N10: the N16-boot-128 design (a dense secret, bootstrapped
 * through the sparse-secret encapsulation) on a small ring. Promised: level 3, 21 bits on [−1, 1].
 */
class CkksCpuDenseSecretBootstrappingConformanceTest extends BootstrappingConformanceTest {
    private final HeBackend backend = new CkksCpuBackend(2);

    @Override
    protected HeBackend backend() {
        return backend;
    }

    @Override
    protected CkksParameters parameters() {
        return backend.preset("insecure-test-boot-dense-N10");
    }

    @Override
    protected int promisedLevel() {
        return 3;
    }

    @Override
    protected double promisedBits() {
        return 21;
    }

    /** The sine's documented cubic loss M·(2π·M·Δ/q_0)²/6 (q_0 ≈ 2^55, Δ = 2^40), plus the in-range error. */
    @Override
    protected double outOfRangeErrorBound(double maxMagnitude) {
        return 1.01 * maxMagnitude * Bootstrapper.sineRelativeError(maxMagnitude, 0x1p40, 0x1p55)
                + maxMagnitude * 0x1p-20;
    }
}
