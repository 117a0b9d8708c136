package dev.polyhe.ckks.scheme;

import dev.polyhe.ckks.rlwe.SwitchingKey;

/**
 * The two switching keys of the sparse-secret encapsulation (see
 * {@link dev.polyhe.ckks.bootstrap.SecretEncapsulation}): s → s' for level 0 only, and s' → s.
 */
record EncapsulationKeys(SwitchingKey toEphemeral, SwitchingKey toMain) {
    long sizeBytes() {
        return toEphemeral.sizeBytes() + toMain.sizeBytes();
    }
}
