package dev.polyhe.backend.cpu.ckks;

import dev.polyhe.backend.cpu.rlwe.SwitchingKey;

/**
 * The two switching keys of the sparse-secret encapsulation (see
 * {@link dev.polyhe.backend.cpu.bootstrap.SecretEncapsulation}): s → s' for level 0 only, and s' → s.
 */
record EncapsulationKeys(SwitchingKey toEphemeral, SwitchingKey toMain) {
    long sizeBytes() {
        return toEphemeral.sizeBytes() + toMain.sizeBytes();
    }
}
