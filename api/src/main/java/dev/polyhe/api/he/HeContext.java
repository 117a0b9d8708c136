package dev.polyhe.api.he;

import java.util.Set;

/**
 * An opened parameter set: key generation, encoding, encryption and evaluation. Owns its memory (native on
 * GPU backends) until {@link #close()}; no static state, so several contexts may coexist.
 */
public interface HeContext extends AutoCloseable {
    CkksParameters parameters();

    /** A stable hash of the parameters, written into every serialized blob. */
    String parameterHash();

    SecretKey generateSecretKey();

    PublicKey generatePublicKey(SecretKey secretKey);

    /**
     * Evaluation keys: relinearization, plus rotation keys for {@code rotationSteps} (taken modulo the slot
     * count), the conjugation key if asked, and bootstrapping keys if asked.
     */
    EvaluationKeys generateEvaluationKeys(SecretKey secretKey, Set<Integer> rotationSteps, boolean conjugation,
            boolean bootstrapping);

    /**
     * About how many bytes {@link #generateEvaluationKeys(SecretKey, Set, boolean, Set)} would hold for these
     * arguments, known before generating anything, so that a caller can refuse work that will not fit in memory;
     * -1 when the backend cannot say.
     */
    default long evaluationKeyBytes(Set<Integer> rotationSteps, boolean conjugation, Set<Integer> bootstrapSlots) {
        return -1;
    }

    /**
     * Evaluation keys that bootstrap ciphertexts of exactly the slot counts in {@code bootstrapSlots} (empty: no
     * bootstrapping). On large rings every slot count's rotations together weigh tens of gigabytes, so a
     * server asks only for the counts its packing uses. Backends that cannot tell slot counts apart give
     * keys for all of them.
     */
    default EvaluationKeys generateEvaluationKeys(SecretKey secretKey, Set<Integer> rotationSteps,
            boolean conjugation, Set<Integer> bootstrapSlots) {
        return generateEvaluationKeys(secretKey, rotationSteps, conjugation, !bootstrapSlots.isEmpty());
    }

    /**
     * The primes q_0 .. q_L of the modulus chain (a rescale at level l divides the scale by q_l), for planning
     * without evaluating: the exact primes decide how far scales drift apart. Empty when the backend does not say.
     */
    default long[] chainPrimes() {
        return new long[0];
    }

    Encoder encoder();

    /** Public-key encryption. */
    Encryptor encryptor(PublicKey publicKey);

    /** Symmetric (secret-key) encryption: smaller noise, for the client's own inputs. */
    Encryptor encryptor(SecretKey secretKey);

    Decryptor decryptor(SecretKey secretKey);

    /** Where this context computes, for reports: "JVM arrays, 16 threads", a GPU's name and driver. */
    default String device() {
        return "unspecified";
    }

    /**
     * An evaluator holding these keys and no secret. If a {@link SecretKey} is given (client-side convenience),
     * rotation keys missing from {@code keys} are generated on demand; without it a missing key is an error.
     */
    Evaluator evaluator(EvaluationKeys keys, SecretKey onDemandKeys);

    default Evaluator evaluator(EvaluationKeys keys) {
        return evaluator(keys, null);
    }

    HeSerializer serializer();

    @Override
    void close();
}
