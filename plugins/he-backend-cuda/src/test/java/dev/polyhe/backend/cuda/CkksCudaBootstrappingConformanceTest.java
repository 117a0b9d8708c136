package dev.polyhe.backend.cuda;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.ckks.bootstrap.Bootstrapper;
import dev.polyhe.he.conformance.BootstrappingConformanceTest;

/**
 * The bootstrapping kit against ckks-cuda with ckks-cpu's promises on insecure-test-boot-N10 (the limbs are the
 * same, so the precision is too); skipped, with the reason, without a GPU.
 */
class CkksCudaBootstrappingConformanceTest extends BootstrappingConformanceTest {
    private final HeBackend backend = new CkksCudaBackend(2);

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

    @Override
    protected double outOfRangeErrorBound(double maxMagnitude) {
        double delta = Math.scalb(1.0, parameters().logScale());
        double q0 = Math.scalb(1.0, parameters().logQ().get(0));
        return 1.01 * maxMagnitude * Bootstrapper.sineRelativeError(maxMagnitude, delta, q0) + maxMagnitude * 0x1p-20;
    }
}
