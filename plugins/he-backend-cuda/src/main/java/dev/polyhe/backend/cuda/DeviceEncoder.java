package dev.polyhe.backend.cuda;

import dev.polyhe.backend.cuda.CudaRingExecutor.DevicePoly;
import dev.polyhe.backend.cuda.DeviceMemory.Allocation;
import dev.polyhe.ckks.executor.RnsPoly;

/**
 * Plaintexts made on the device (issue 42's first item): the values go up once and the encoding runs in kernels, bit
 * for bit what the host's CanonicalEncoder computes. Every method runs in an operation of {@link CudaRingExecutor} and
 * queues its launches on the calling thread's stream.
 */
final class DeviceEncoder {
    private final CudaRingExecutor exec;
    private final DeviceMemory memory;
    private final DeviceTables tables;
    private final int n;
    private final long limbBytes;

    DeviceEncoder(CudaRingExecutor exec, DeviceMemory memory, DeviceTables tables, int n) {
        this.exec = exec;
        this.memory = memory;
        this.tables = tables;
        this.n = n;
        this.limbBytes = (long) n * Long.BYTES;
    }

    /**
     * The encoder's coefficients uploaded once (N words, not a limb each), reduced into every limb and transformed
     * on the device: one copy and three launches a plaintext.
     */
    RnsPoly fromCoefficients(long[] coefficients, int level) {
        Allocation staged = memory.allocate(limbBytes);
        exec.upload(staged.ptr, coefficients);
        DevicePoly out = exec.poly(level + 1);
        exec.launch(
                "encode_coefficients", n, level + 1, out.memory().ptr, staged.ptr, tables.identity.ptr, tables.pc, n);
        exec.ntt.forward(out.memory().ptr, level + 1, tables.identity.ptr);
        staged.release();
        return out;
    }

    /**
     * The whole encoding on the device, as CanonicalEncoder does it on the host: the slots' values uploaded once (2 ×
     * slots doubles), the inverse special FFT in one or two shared-memory launches, the scaling, rounding and
     * reduction into every limb in one, the NTT in one or two.
     */
    RnsPoly fromSlots(double[] re, double[] im, int slots, int level, double scale) {
        int logSlots = Integer.numberOfTrailingZeros(slots);
        long[] staged = new long[2 * slots];
        for (int i = 0; i < slots; i++) {
            staged[i] = Double.doubleToRawLongBits(re[i]);
            staged[slots + i] = Double.doubleToRawLongBits(im[i]);
        }
        long factor = Double.doubleToRawLongBits(scale / slots); // the FFT's 1/slots folded in, as the host does
        Allocation values = memory.allocate(2L * slots * Double.BYTES);
        exec.upload(values.ptr, staged);
        if (logSlots > 0) {
            for (NttPhases.Phase ph : NttPhases.plan(logSlots)) {
                exec.launchBlocks(
                        "fft_inv_phase",
                        ph.blocks(logSlots),
                        1,
                        ph.threads(),
                        2 * ph.sharedBytes(),
                        values.ptr,
                        tables.fftRe.ptr,
                        tables.fftIm.ptr,
                        logSlots,
                        ph.s0(),
                        ph.k(),
                        ph.logTiles());
            }
        }
        DevicePoly out = exec.poly(level + 1);
        exec.launch(
                "encode_slots",
                n,
                level + 1,
                out.memory().ptr,
                values.ptr,
                logSlots,
                new long[] {factor},
                tables.identity.ptr,
                tables.pc,
                n);
        exec.ntt.forward(out.memory().ptr, level + 1, tables.identity.ptr);
        values.release();
        return out;
    }
}
