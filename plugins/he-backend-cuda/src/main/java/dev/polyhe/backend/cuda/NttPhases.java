package dev.polyhe.backend.cuda;

import java.util.List;

/**
 * How a transform of 2^logN points is split into launches of ring_kernels.cu's {@code ntt_fwd_phase} /
 * {@code ntt_inv_phase}: one phase up to 2^11 points, else two of about half the stages each, so that a block's
 * tiles fill 16 KiB of shared memory (2^11 words) and every stage of a phase reads and writes shared memory only.
 * The host emulation mirrors this plan (host_emulation.cu, nttPlan) and also checks every other split.
 */
final class NttPhases {
    /** Words of shared memory a block works in. */
    static final int LOG_BLOCK_WORDS = 11;
    /** Threads a block: each does elems / 2 / THREADS butterflies a stage. */
    static final int THREADS = 256;

    private NttPhases() {}

    /** Stages [s0, s0 + k) over tiles of 2^k points, 2^logTiles tiles a block. */
    record Phase(int s0, int k, int logTiles) {
        int blocks(int logN) {
            return 1 << (logN - k - logTiles);
        }

        int sharedBytes() {
            return Long.BYTES << (k + logTiles);
        }

        int threads() {
            return Math.min(THREADS, 1 << (k + logTiles - 1));
        }
    }

    static List<Phase> plan(int logN) {
        if (logN <= LOG_BLOCK_WORDS) {
            return List.of(new Phase(0, logN, 0));
        }
        int k1 = (logN + 1) / 2;
        int k2 = logN - k1;
        return List.of(new Phase(0, k1, tiles(logN, k1)), new Phase(k1, k2, tiles(logN, k2)));
    }

    private static int tiles(int logN, int k) {
        return Math.max(0, Math.min(LOG_BLOCK_WORDS - k, logN - k));
    }
}
