package dev.polyhe.backend.cpu;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.ckks.bootstrap.Bootstrapper;
import dev.polyhe.he.conformance.BootstrappingConformanceTest;

/**
 * The bootstrapping kit on insecure-test-boot-N10 (full slots: 512), two threads. Promised: level 3 (14 of the
 * 17 levels go to the circuit), 21 bits on [−1, 1] (measured: about 24 bits worst slot, 26.7 mean).
 */
class CkksCpuBootstrappingConformanceTest extends BootstrappingConformanceTest {
    private final HeBackend backend = new CkksCpuBackend(2);

    @Override
    protected HeBackend backend() {
        return backend;
    }

    @Override
    protected CkksParameters parameters() {
        return backend.preset("insecure-test-boot-N10");
    }

    @Override
    protected int promisedLevel() {
        return 3;
    }

    @Override
    protected double promisedBits() {
        return 21;
    }

    /** The sine's documented cubic loss M·(2π·M·Δ/q_0)²/6 at this ring's q_0 and Δ, plus the in-range error. */
    @Override
    protected double outOfRangeErrorBound(double maxMagnitude) {
        double delta = Math.scalb(1.0, parameters().logScale());
        double q0 = Math.scalb(1.0, parameters().logQ().get(0));
        return 1.01 * maxMagnitude * Bootstrapper.sineRelativeError(maxMagnitude, delta, q0) + maxMagnitude * 0x1p-20;
    }
}
