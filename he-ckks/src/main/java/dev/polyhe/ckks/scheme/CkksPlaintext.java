package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Plaintext;

/** An encoded vector: limbs 0..level in NTT form. Immutable (limbs are never written after construction). */
final class CkksPlaintext implements Plaintext {
    final long[][] limbs;
    private final int level;
    private final double scale;
    private final int slots;
    private final String parameterHash;

    CkksPlaintext(long[][] limbs, int level, double scale, int slots, String parameterHash) {
        this.limbs = limbs;
        this.level = level;
        this.scale = scale;
        this.slots = slots;
        this.parameterHash = parameterHash;
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
    public String toString() {
        return "Plaintext[level=" + level + ", scale=2^" + String.format("%.2f", Math.log(scale) / Math.log(2))
                + ", slots=" + slots + "]";
    }
}
