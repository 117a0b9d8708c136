package dev.polyhe.core.encrypted;

import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.core.engine.encrypted.EncryptedEngine;
import dev.polyhe.core.engine.encrypted.Packing;

/**
 * An opened parameter set with its keys. The client's key set has the secret key; the server's has only the
 * evaluation keys ({@link #secretKey()} is null) and cannot encrypt or decrypt.
 *
 * @param backend the backend the key set was made with: its files (keys, ciphertexts) name it, whichever backend of
 *     the same data format evaluates them
 * @param packing the packing the keys' rotations (and bootstrapping keys, if any) serve
 * @param dataFormat what the keys are as data ({@code HeBackend.dataFormat}): the backends that can read them
 */
public record KeySet(
        String backend,
        HeContext context,
        SecretKey secretKey,
        EvaluationKeys evaluationKeys,
        Packing packing,
        String dataFormat)
        implements AutoCloseable {

    /** A key set whose data only its own backend reads. */
    public KeySet(
            String backend, HeContext context, SecretKey secretKey, EvaluationKeys evaluationKeys, Packing packing) {
        this(backend, context, secretKey, evaluationKeys, packing, backend);
    }

    /** P, the slots per column: inputs of up to P tokens. */
    public int packingSlots() {
        return packing.slots();
    }

    public boolean clientSide() {
        return secretKey != null;
    }

    /** An engine for this key set: with encryptor and decryptor on the client, without on the server. */
    public EncryptedEngine engine() {
        return new EncryptedEngine(
                context,
                context.evaluator(evaluationKeys),
                evaluationKeys,
                secretKey == null ? null : context.encryptor(secretKey),
                secretKey == null ? null : context.decryptor(secretKey),
                packing);
    }

    @Override
    public void close() {
        context.close();
    }
}
