package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Relinearization key, rotation keys by (normalised) step, the optional conjugation key, and what
 * bootstrapping needs besides: the slot counts it serves and, for a dense secret, the encapsulation keys.
 */
final class CkksEvaluationKeys implements EvaluationKeys {
    final SwitchingKey relinearization;
    final Map<Integer, SwitchingKey> rotations;
    final SwitchingKey conjugation;
    private final String parameterHash;
    private final String keySetId;

    /** The slot counts generated for bootstrapping; serialized, so a server's reloaded set can bootstrap. */
    private final Set<Integer> bootstrapSlots;
    /** Null unless the secret is dense and the keys bootstrap. */
    final EncapsulationKeys encapsulation;

    CkksEvaluationKeys(
            SwitchingKey relinearization,
            Map<Integer, SwitchingKey> rotations,
            SwitchingKey conjugation,
            String parameterHash,
            String keySetId,
            Set<Integer> bootstrapSlots,
            EncapsulationKeys encapsulation) {
        this.bootstrapSlots = Collections.unmodifiableSet(new TreeSet<>(bootstrapSlots));
        this.encapsulation = encapsulation;
        this.relinearization = relinearization;
        this.rotations = Collections.unmodifiableMap(new TreeMap<>(rotations));
        this.conjugation = conjugation;
        this.parameterHash = parameterHash;
        this.keySetId = keySetId;
    }

    @Override
    public Set<Integer> rotationSteps() {
        return rotations.keySet();
    }

    @Override
    public boolean hasConjugation() {
        return conjugation != null;
    }

    @Override
    public boolean hasBootstrapping() {
        return !bootstrapSlots.isEmpty();
    }

    @Override
    public Set<Integer> bootstrapSlots() {
        return bootstrapSlots;
    }

    @Override
    public boolean bootstraps(int slots) {
        return bootstrapSlots.contains(slots);
    }

    /** Size in bytes of the encapsulation keys (0 without). */
    long encapsulationKeyBytes() {
        return encapsulation == null ? 0 : encapsulation.sizeBytes();
    }

    @Override
    public long relinearizationKeyBytes() {
        return relinearization.sizeBytes();
    }

    @Override
    public long rotationKeyBytes() {
        long total = (conjugation == null ? 0 : conjugation.sizeBytes()) + encapsulationKeyBytes();
        for (SwitchingKey k : rotations.values()) {
            total += k.sizeBytes();
        }
        return total;
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
        return "EvaluationKeys[keySet=" + keySetId + ", rotations=" + rotations.keySet() + ", conjugation="
                + hasConjugation() + ", bootstrapSlots=" + bootstrapSlots + "]";
    }
}
