package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.ckks.executor.RnsPoly;

/**
 * (c0, c1) with c0 + c1·s ≈ Δ·m, limbs 0..level in NTT form, held by the context's ring executor. Immutable:
 * limbs may be shared between ciphertexts (a level drop shares them), so nothing ever writes into them.
 */
final class CkksCiphertext implements Ciphertext {
    final RnsPoly c0;
    final RnsPoly c1;
    private final int level;
    private final double scale;
    private final int slots;
    private final String parameterHash;
    private final String keySetId;

    CkksCiphertext(RnsPoly c0, RnsPoly c1, int level, double scale, int slots, String parameterHash, String keySetId) {
        this.c0 = c0;
        this.c1 = c1;
        this.level = level;
        this.scale = scale;
        this.slots = slots;
        this.parameterHash = parameterHash;
        this.keySetId = keySetId;
    }

    CkksCiphertext with(RnsPoly n0, RnsPoly n1, int newLevel, double newScale) {
        return new CkksCiphertext(n0, n1, newLevel, newScale, slots, parameterHash, keySetId);
    }

    @Override
    public int level() {
        return level;
    }

    @Override
    public double scale() {
        return scale;
    }

    @Override
    public int slots() {
        return slots;
    }

    @Override
    public String parameterHash() {
        return parameterHash;
    }

    @Override
    public String keySetId() {
        return keySetId;
    }

    @Override
    public String toString() {
        return "Ciphertext[level=" + level + ", scale=2^" + String.format("%.2f", Math.log(scale) / Math.log(2))
                + ", slots=" + slots + ", keySet=" + keySetId + "]";
    }
}
