package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Plaintext;
import dev.polyhe.ckks.executor.RnsPoly;

/** An encoded vector: limbs 0..level in NTT form, held by the context's ring executor. Immutable. */
final class CkksPlaintext implements Plaintext {
    final RnsPoly poly;
    private final int level;
    private final double scale;
    private final int slots;
    private final String parameterHash;

    CkksPlaintext(RnsPoly poly, int level, double scale, int slots, String parameterHash) {
        this.poly = poly;
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
