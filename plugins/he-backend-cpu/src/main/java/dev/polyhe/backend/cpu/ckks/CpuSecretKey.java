package dev.polyhe.backend.cpu.ckks;

import dev.polyhe.api.he.SecretKey;
import dev.polyhe.backend.cpu.rlwe.RlweSecret;

/** The secret: never printed; leaves memory only through {@code HeSerializer.writeSecretKey}. */
final class CpuSecretKey implements SecretKey {
    final RlweSecret secret;
    private final String parameterHash;
    private final String keySetId;

    CpuSecretKey(RlweSecret secret, String parameterHash, String keySetId) {
        this.secret = secret;
        this.parameterHash = parameterHash;
        this.keySetId = keySetId;
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
        return "SecretKey[keySet=" + keySetId + ", redacted]";
    }
}
