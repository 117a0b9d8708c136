package dev.polyhe.core.engine.symbolic;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.Decryptor;
import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.Encryptor;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeSerializer;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.api.he.PublicKey;
import dev.polyhe.api.he.SecretKey;
import java.util.Set;

/**
 * A parameter set opened for planning: ciphertexts are their level and scale only, so a model of any size runs
 * through the engine in seconds, taking every decision (alignment, rescaling, where to bootstrap, pairing) as the
 * real run would. It encrypts and "decrypts" (to zeros) so that the whole client/server path runs unchanged; it
 * never serializes. Keys are free: whatever the packing needs is there.
 */
public final class SymbolicContext implements HeContext {
    static final String KEY_SET = "symbolic";

    private final CkksParameters parameters;
    private final long[] primes;
    private final String hash;
    private final SymbolicEvaluator evaluator;

    /**
     * @param primes the chain's primes q_0 .. q_L ({@link HeContext#chainPrimes()}); empty: 2^bits each, which
     *     ignores how real primes make scales drift apart
     * @param bootstrappedLevel the level bootstrapping returns ciphertexts at
     */
    public SymbolicContext(CkksParameters parameters, long[] primes, int bootstrappedLevel) {
        this.parameters = parameters;
        this.primes = primes.length > 0 ? primes.clone() : null;
        this.hash = "symbolic-" + parameters.logN() + "-" + parameters.logQ();
        double[] q = new double[parameters.maxLevel() + 1];
        for (int i = 0; i < q.length; i++) {
            q[i] = this.primes != null
                    ? this.primes[i]
                    : Math.scalb(1.0, parameters.logQ().get(i));
        }
        this.evaluator = new SymbolicEvaluator(q, bootstrappedLevel);
    }

    /** Whether scales follow the backend's real primes (else powers of two, which never drift). */
    public boolean exactPrimes() {
        return primes != null;
    }

    @Override
    public CkksParameters parameters() {
        return parameters;
    }

    @Override
    public String parameterHash() {
        return hash;
    }

    @Override
    public long[] chainPrimes() {
        return primes == null ? new long[0] : primes.clone();
    }

    @Override
    public SecretKey generateSecretKey() {
        return new SymbolicKey(hash);
    }

    @Override
    public PublicKey generatePublicKey(SecretKey secretKey) {
        return new SymbolicKey(hash);
    }

    @Override
    public EvaluationKeys generateEvaluationKeys(
            SecretKey secretKey, Set<Integer> rotationSteps, boolean conjugation, boolean bootstrapping) {
        return new SymbolicKeys(hash, Set.copyOf(rotationSteps), conjugation, bootstrapping, Set.of());
    }

    @Override
    public EvaluationKeys generateEvaluationKeys(
            SecretKey secretKey, Set<Integer> rotationSteps, boolean conjugation, Set<Integer> bootstrapSlots) {
        return new SymbolicKeys(
                hash, Set.copyOf(rotationSteps), conjugation, !bootstrapSlots.isEmpty(), Set.copyOf(bootstrapSlots));
    }

    @Override
    public Encoder encoder() {
        return new Encoder() {
            @Override
            public Plaintext encode(double[] values, int slots, int level, double scale) {
                return new SymbolicPlaintext(level, scale, slots, hash);
            }

            @Override
            public Plaintext encodeComplex(double[] real, double[] imag, int slots, int level, double scale) {
                return new SymbolicPlaintext(level, scale, slots, hash);
            }

            @Override
            public double[] decode(Plaintext plaintext) {
                return new double[plaintext.slots()];
            }

            @Override
            public double[][] decodeComplex(Plaintext plaintext) {
                return new double[][] {new double[plaintext.slots()], new double[plaintext.slots()]};
            }
        };
    }

    private Encryptor encryptor() {
        return p -> new SymbolicCiphertext(p.level(), p.scale(), p.slots(), hash);
    }

    @Override
    public Encryptor encryptor(PublicKey publicKey) {
        return encryptor();
    }

    @Override
    public Encryptor encryptor(SecretKey secretKey) {
        return encryptor();
    }

    @Override
    public Decryptor decryptor(SecretKey secretKey) {
        return (Ciphertext c) -> new SymbolicPlaintext(c.level(), c.scale(), c.slots(), hash);
    }

    @Override
    public Evaluator evaluator(EvaluationKeys keys, SecretKey onDemandKeys) {
        return evaluator;
    }

    @Override
    public HeSerializer serializer() {
        throw new UnsupportedOperationException("a symbolic context plans; it has nothing to serialize");
    }

    @Override
    public void close() {}

    private record SymbolicKey(String parameterHash) implements SecretKey, PublicKey {
        @Override
        public String keySetId() {
            return KEY_SET;
        }
    }

    private record SymbolicKeys(
            String parameterHash,
            Set<Integer> rotationSteps,
            boolean hasConjugation,
            boolean hasBootstrapping,
            Set<Integer> bootstrapSlots)
            implements EvaluationKeys {
        @Override
        public String keySetId() {
            return KEY_SET;
        }

        @Override
        public long relinearizationKeyBytes() {
            return 0;
        }

        @Override
        public long rotationKeyBytes() {
            return 0;
        }
    }
}
