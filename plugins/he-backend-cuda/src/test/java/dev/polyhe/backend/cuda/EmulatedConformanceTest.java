package dev.polyhe.backend.cuda;

import dev.polyhe.api.he.HeBackend;

/**
 * The whole conformance kit against ckks-cuda on the {@link EmulatedDevice}: the backend, its contexts, keys on the
 * device, serialization through downloads, every operation through the executor's launch sequences, on any machine.
 */
class EmulatedConformanceTest extends CkksCudaN12ConformanceTest {
    /** Each operation on the next of four streams: every operand crosses streams (waits left out would fail). */
    private final HeBackend emulated = new CkksCudaBackend(2, () -> new EmulatedDevice(4L << 30), 4, true);

    @Override
    protected HeBackend backend() {
        return emulated;
    }
}
