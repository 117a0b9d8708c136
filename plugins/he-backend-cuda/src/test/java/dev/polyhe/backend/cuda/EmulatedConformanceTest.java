package dev.polyhe.backend.cuda;

import dev.polyhe.api.he.HeBackend;

/**
 * The whole conformance kit against ckks-cuda on the {@link EmulatedDevice}: the backend, its contexts, keys on the
 * device, serialization through downloads, every operation through the executor's launch sequences, on any machine.
 */
class EmulatedConformanceTest extends CkksCudaN12ConformanceTest {
    private final HeBackend emulated = new CkksCudaBackend(2, () -> new EmulatedDevice(4L << 30));

    @Override
    protected HeBackend backend() {
        return emulated;
    }
}
