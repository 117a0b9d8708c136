package dev.polyhe.backend.cuda;

import dev.polyhe.ckks.scheme.SchemeParameters;

/**
 * {@link CudaLimbTest} on GPU 0 with each operation on the next of three streams: every operand is read on another
 * stream than the one that wrote it, so the events that order them are exercised on the device. Skipped without one.
 */
class CudaHoppingLimbTest extends CudaLimbTest {
    @Override
    CudaRingExecutor executor(SchemeParameters params) {
        CudaRingExecutor exec = CudaRingExecutor.open(CudaDevice.open(), params, 3);
        exec.hopStreamsForTests(true);
        return exec;
    }
}
