package dev.polyhe.backend.cuda;

import dev.polyhe.backend.cuda.DeviceApi.Ptr;

/**
 * The NTT and its inverse on the device, over every limb of a buffer in one pass: up to N = 2^11 one launch, above two,
 * each a run of butterfly stages done in shared memory between barriers ({@link NttPhases}). Runs in an operation of
 * {@link CudaRingExecutor}, on the calling thread's stream.
 */
final class DeviceNtt {
    private final CudaRingExecutor exec;
    private final DeviceTables tables;
    private final int logN;

    DeviceNtt(CudaRingExecutor exec, DeviceTables tables, int logN) {
        this.exec = exec;
        this.tables = tables;
        this.logN = logN;
    }

    /**
     * Forward NTT in place on {@code limbs} limbs from {@code a}, limb k modulo prime primes[k]: one or two launches.
     */
    void forward(Ptr a, int limbs, Ptr primes) {
        transform("ntt_fwd_phase", a, limbs, primes, tables.psiRev, tables.psiRevShoup);
    }

    /** The inverse NTT in place, as {@link #forward}. */
    void inverse(Ptr a, int limbs, Ptr primes) {
        transform("ntt_inv_phase", a, limbs, primes, tables.psiInvRev, tables.psiInvRevShoup);
    }

    private void transform(String kernel, Ptr a, int limbs, Ptr primes, Ptr twiddles, Ptr twiddlesShoup) {
        for (NttPhases.Phase ph : NttPhases.plan(logN)) {
            exec.launchBlocks(
                    kernel,
                    ph.blocks(logN),
                    limbs,
                    ph.threads(),
                    ph.sharedBytes(),
                    a,
                    primes,
                    tables.pc,
                    twiddles,
                    twiddlesShoup,
                    logN,
                    ph.s0(),
                    ph.k(),
                    ph.logTiles());
        }
    }
}
