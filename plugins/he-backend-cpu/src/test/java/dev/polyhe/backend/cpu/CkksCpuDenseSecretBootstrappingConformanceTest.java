package dev.polyhe.backend.cpu;

import dev.polyhe.api.he.CkksParameters;

/**
 * The bootstrapping kit on insecure-test-boot-dense-N10: the N16-boot-128 design (a dense secret, bootstrapped
 * through the sparse-secret encapsulation, ten user levels) on a small ring, with the same promises as the
 * sparse-secret ring but its level.
 */
class CkksCpuDenseSecretBootstrappingConformanceTest extends CkksCpuBootstrappingConformanceTest {
    @Override
    protected CkksParameters parameters() {
        return backend().preset("insecure-test-boot-dense-N10");
    }

    /** The design's ten user levels, as at 128 bits. */
    @Override
    protected int promisedLevel() {
        return 10;
    }
}
