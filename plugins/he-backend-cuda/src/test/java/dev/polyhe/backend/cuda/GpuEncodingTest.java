package dev.polyhe.backend.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.polyhe.api.he.Availability;
import org.junit.jupiter.api.BeforeEach;

/** {@link DeviceEncodingTest} on GPU 0: the FFT and rounding kernels against the host's bytes; skipped without one. */
class GpuEncodingTest extends DeviceEncodingTest {
    @BeforeEach
    void requireGpu() {
        Availability a = new CkksCudaBackend().availability();
        assumeTrue(a.available(), () -> "ckks-cuda cannot run here: " + a.reason());
    }

    @Override
    DeviceApi device(long capacity) {
        return CudaDevice.open();
    }
}
