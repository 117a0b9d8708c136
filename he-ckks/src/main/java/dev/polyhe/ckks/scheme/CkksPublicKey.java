package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.PublicKey;

/** (b, a) = (-a·s + e, a) over Q at the top level, NTT form. */
final class CkksPublicKey implements PublicKey {
    final long[][] b;
    final long[][] a;
    private final String parameterHash;
    private final String keySetId;

    CkksPublicKey(long[][] b, long[][] a, String parameterHash, String keySetId) {
        this.b = b;
        this.a = a;
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
        return "PublicKey[keySet=" + keySetId + "]";
    }
}
