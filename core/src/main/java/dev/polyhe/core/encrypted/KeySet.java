package dev.polyhe.core.encrypted;

import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.core.engine.ckks.CkksEngine;
import dev.polyhe.core.engine.ckks.Packing;

/**
 * An opened parameter set with its keys. The client's key set has the secret key; the server's has only the
 * evaluation keys ({@link #secretKey()} is null) and cannot encrypt or decrypt.
 *
 * @param packing the packing the keys' rotations (and bootstrapping keys, if any) serve
 */
public record KeySet(String backend, HeContext context, SecretKey secretKey, EvaluationKeys evaluationKeys,
        Packing packing) implements AutoCloseable {

    /** P, the slots per column: inputs of up to P tokens. */
    public int packingSlots() {
        return packing.slots();
    }

    public boolean clientSide() {
        return secretKey != null;
    }

    /** An engine for this key set: with encryptor and decryptor on the client, without on the server. */
    public CkksEngine engine() {
        return new CkksEngine(context, context.evaluator(evaluationKeys), evaluationKeys,
                secretKey == null ? null : context.encryptor(secretKey),
                secretKey == null ? null : context.decryptor(secretKey), packing);
    }

    @Override
    public void close() {
        context.close();
    }
}
