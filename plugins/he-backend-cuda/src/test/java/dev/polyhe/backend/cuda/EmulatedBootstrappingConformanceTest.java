package dev.polyhe.backend.cuda;

import dev.polyhe.api.he.HeBackend;

/** The bootstrapping kit against ckks-cuda on the {@link EmulatedDevice}, with the same promises. */
class EmulatedBootstrappingConformanceTest extends CkksCudaBootstrappingConformanceTest {
    private final HeBackend emulated = new CkksCudaBackend(2, () -> new EmulatedDevice(4L << 30));

    @Override
    protected HeBackend backend() {
        return emulated;
    }
}
