package dev.polyhe.core.engine.encrypted;

/** Mutable counters of one operator (scope path), summed over every call. */
public final class OperatorStats {
    long nanos;
    long calls;
    long ciphertextMultiplications;
    long plaintextMultiplications;
    long constantMultiplications;
    long rotations;
    long keySwitches;
    long bootstraps;
    long rescales;
    long encodes;
    long encodedLimbs;
    long bootstrappedCiphertexts;
    long bootstrappedSlots;
    double estimatedSeconds;
    int levelsUsed;
    int entryLevel = -1;
    int lowestLevel = -1;

    public long nanos() {
        return nanos;
    }

    public long calls() {
        return calls;
    }

    public long ciphertextMultiplications() {
        return ciphertextMultiplications;
    }

    public long plaintextMultiplications() {
        return plaintextMultiplications;
    }

    public long constantMultiplications() {
        return constantMultiplications;
    }

    public long rotations() {
        return rotations;
    }

    /** Relinearizations plus rotations: each one key switch. */
    public long keySwitches() {
        return keySwitches;
    }

    public long bootstraps() {
        return bootstraps;
    }

    public long rescales() {
        return rescales;
    }

    /** Plaintexts encoded (weights missed by a cache, masks, constants at a scale). */
    public long encodes() {
        return encodes;
    }

    /** The RNS limbs of those plaintexts (level + 1 each): what encoding them cost and what they take to keep. */
    public long encodedLimbs() {
        return encodedLimbs;
    }

    /** Ciphertexts refreshed by bootstraps (a pair in one call counts two; a precise refresh counts once). */
    public long bootstrappedCiphertexts() {
        return bootstrappedCiphertexts;
    }

    /** The slots of those ciphertexts, summed: what sparse-slot bootstrapping would save on. */
    public long bootstrappedSlots() {
        return bootstrappedSlots;
    }

    /**
     * What {@link CostModel} makes of this operator's evaluator calls and encodes, in seconds: beside the measured
     * seconds after a run, alone after a planning run.
     */
    public double estimatedSeconds() {
        return estimatedSeconds;
    }

    /** Most levels consumed by one call of this operator (level at entry minus the lowest level reached). */
    public int levelsUsed() {
        return levelsUsed;
    }

    /** The level of the first operand entering the first call (-1: no ciphertext seen). */
    public int entryLevel() {
        return entryLevel;
    }

    /** The lowest level any call reached (-1: no ciphertext seen). */
    public int lowestLevel() {
        return lowestLevel;
    }
}
