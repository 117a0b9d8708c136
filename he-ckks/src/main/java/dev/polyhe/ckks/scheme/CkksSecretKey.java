package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.SecretKey;
import dev.polyhe.ckks.rlwe.RlweSecret;

/** The secret: never printed; leaves memory only through {@code HeSerializer.writeSecretKey}. */
final class CkksSecretKey implements SecretKey {
    final RlweSecret secret;
    private final String parameterHash;
    private final String keySetId;

    CkksSecretKey(RlweSecret secret, String parameterHash, String keySetId) {
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
