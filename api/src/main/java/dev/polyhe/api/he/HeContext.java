package dev.polyhe.api.he;

import java.util.Set;

/**
 * An opened parameter set: key generation, encoding, encryption and evaluation. Owns its memory (native on
 * GPU backends) until {@link #close()}; no static state, so several contexts may coexist.
 */
public interface HeContext extends AutoCloseable {
    /** @return the parameters this context was opened with */
    CkksParameters parameters();

    /** @return a stable hash of the parameters, written into every serialized blob */
    String parameterHash();

    /** @return a new secret key from a secure random source (the client's; never sent to a server) */
    SecretKey generateSecretKey();

    /**
     * @param secretKey the client's secret key
     * @return the public key of that secret key
     */
    PublicKey generatePublicKey(SecretKey secretKey);

    /**
     * Evaluation keys: relinearization, plus rotation keys for {@code rotationSteps} (taken modulo the slot
     * count), the conjugation key if asked, and bootstrapping keys if asked.
     *
     * @param secretKey the client's secret key
     * @param rotationSteps the rotations the server's program needs
     * @param conjugation whether to include the conjugation key
     * @param bootstrapping whether to include bootstrapping keys (for every slot count)
     * @return the keys, holding no secret
     * @throws HeException when the parameters cannot bootstrap and bootstrapping keys are asked for
     */
    EvaluationKeys generateEvaluationKeys(
            SecretKey secretKey, Set<Integer> rotationSteps, boolean conjugation, boolean bootstrapping);

    /**
     * About how many bytes {@link #generateEvaluationKeys(SecretKey, Set, boolean, Set)} would hold for these
     * arguments, known before generating anything, so that a caller can refuse work that will not fit in memory;
     * -1 when the backend cannot say.
     *
     * @param rotationSteps the rotations asked for
     * @param conjugation whether the conjugation key is asked for
     * @param bootstrapSlots the slot counts to bootstrap
     * @return the bytes, or -1
     */
    default long evaluationKeyBytes(Set<Integer> rotationSteps, boolean conjugation, Set<Integer> bootstrapSlots) {
        return -1;
    }

    /**
     * Evaluation keys that bootstrap ciphertexts of exactly the slot counts in {@code bootstrapSlots} (empty: no
     * bootstrapping). On large rings every slot count's rotations together weigh tens of gigabytes, so a
     * server asks only for the counts its packing uses. Backends that cannot tell slot counts apart give
     * keys for all of them.
     *
     * @param secretKey the client's secret key
     * @param rotationSteps the rotations the server's program needs
     * @param conjugation whether to include the conjugation key
     * @param bootstrapSlots the slot counts to bootstrap
     * @return the keys, holding no secret
     */
    default EvaluationKeys generateEvaluationKeys(
            SecretKey secretKey, Set<Integer> rotationSteps, boolean conjugation, Set<Integer> bootstrapSlots) {
        return generateEvaluationKeys(secretKey, rotationSteps, conjugation, !bootstrapSlots.isEmpty());
    }

    /**
     * The primes q_0 .. q_L of the modulus chain (a rescale at level l divides the scale by q_l), for planning
     * without evaluating: the exact primes decide how far scales drift apart. Empty when the backend does not say.
     *
     * @return q_0 .. q_L, or an empty array
     */
    default long[] chainPrimes() {
        return new long[0];
    }

    /** @return the encoder of slot values into plaintexts at a level and scale */
    Encoder encoder();

    /**
     * Public-key encryption.
     *
     * @param publicKey the key to encrypt under
     * @return an encryptor
     */
    Encryptor encryptor(PublicKey publicKey);

    /**
     * Symmetric (secret-key) encryption: smaller noise, for the client's own inputs.
     *
     * @param secretKey the client's secret key
     * @return an encryptor
     */
    Encryptor encryptor(SecretKey secretKey);

    /**
     * @param secretKey the secret key the ciphertexts were made under
     * @return a decryptor (client side only)
     */
    Decryptor decryptor(SecretKey secretKey);

    /** @return where this context computes, for reports: "JVM arrays, 16 threads", a GPU's name and driver */
    default String device() {
        return "unspecified";
    }

    /**
     * @return bytes of memory on the device that holds this context's ciphertexts, plaintexts and keys where that is
     *     not the JVM heap (a GPU's), so that caches of encoded plaintexts can size themselves by it; 0 where they
     *     live on the heap
     */
    default long deviceMemoryBytes() {
        return 0;
    }

    /**
     * An evaluator holding these keys and no secret. If a {@link SecretKey} is given (client-side convenience),
     * rotation keys missing from {@code keys} are generated on demand; without it a missing key is an error.
     *
     * @param keys the evaluation keys, of this context's parameters
     * @param onDemandKeys a secret key to make missing rotation keys with, or null (a server)
     * @return an evaluator
     * @throws HeException when the keys were made for other parameters
     */
    Evaluator evaluator(EvaluationKeys keys, SecretKey onDemandKeys);

    /**
     * @param keys the evaluation keys, of this context's parameters
     * @return an evaluator holding no secret (a missing key is an error)
     */
    default Evaluator evaluator(EvaluationKeys keys) {
        return evaluator(keys, null);
    }

    /** @return the reader and writer of this context's keys and ciphertexts */
    HeSerializer serializer();

    @Override
    void close();
}
