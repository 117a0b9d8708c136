package dev.polyhe.backend.cpu.ckks;

import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.backend.cpu.rlwe.SwitchingKey;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Relinearization key, rotation keys by (normalised) step, and the optional conjugation key. */
final class CpuEvaluationKeys implements EvaluationKeys {
    final SwitchingKey relinearization;
    final Map<Integer, SwitchingKey> rotations;
    final SwitchingKey conjugation;
    private final String parameterHash;
    private final String keySetId;

    /** Set when generated for bootstrapping; serialized with the keys, so a server's reloaded set can bootstrap. */
    private final boolean bootstrapping;

    CpuEvaluationKeys(SwitchingKey relinearization, Map<Integer, SwitchingKey> rotations, SwitchingKey conjugation,
            String parameterHash, String keySetId) {
        this(relinearization, rotations, conjugation, parameterHash, keySetId, false);
    }

    CpuEvaluationKeys(SwitchingKey relinearization, Map<Integer, SwitchingKey> rotations, SwitchingKey conjugation,
            String parameterHash, String keySetId, boolean bootstrapping) {
        this.bootstrapping = bootstrapping;
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
        return bootstrapping;
    }

    @Override
    public long relinearizationKeyBytes() {
        return relinearization.sizeBytes();
    }

    @Override
    public long rotationKeyBytes() {
        long total = conjugation == null ? 0 : conjugation.sizeBytes();
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
                + hasConjugation() + "]";
    }
}
