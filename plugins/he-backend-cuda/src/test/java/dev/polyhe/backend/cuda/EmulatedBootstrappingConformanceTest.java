package dev.polyhe.backend.cuda;

import dev.polyhe.api.he.HeBackend;

/** The bootstrapping kit against ckks-cuda on the {@link EmulatedDevice}, with the same promises. */
class EmulatedBootstrappingConformanceTest extends CkksCudaBootstrappingConformanceTest {
    /** Each operation on the next of four streams: every operand crosses streams (waits left out would fail). */
    private final HeBackend emulated = new CkksCudaBackend(2, () -> new EmulatedDevice(4L << 30), 4, true);

    @Override
    protected HeBackend backend() {
        return emulated;
    }
}
