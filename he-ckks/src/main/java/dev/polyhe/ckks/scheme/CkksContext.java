package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.Decryptor;
import dev.polyhe.api.he.DeviceQueue;
import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.Encryptor;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.HeSerializer;
import dev.polyhe.api.he.PublicKey;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SingleLimbNtt;
import dev.polyhe.ckks.bootstrap.BootstrapParameters;
import dev.polyhe.ckks.bootstrap.Bootstrapper;
import dev.polyhe.ckks.executor.HostRingExecutor;
import dev.polyhe.ckks.executor.RingExecutor;
import dev.polyhe.ckks.ring.LimbPool;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * An opened parameter set over one ring executor. Owns the host's limb thread pool (key generation, encoding,
 * encryption, and the host executor's arithmetic) and the executor, both released by {@link #close()}.
 */
public final class CkksContext implements HeContext, SingleLimbNtt, DeviceQueue {
    private final SchemeParameters params;
    private final LimbPool pool;
    private final CanonicalEncoder encoder;
    /** Bootstrapping's encoded circuits, built once for every evaluator of this context (an engine per query). */
    private final Bootstrapper.Circuits bootstrapCircuits = new Bootstrapper.Circuits();

    private final CkksKeyGenerator keygen;
    private final RingExecutor exec;
    private final CkksSerializer serializer;
    private volatile boolean closed;

    /** Over the host executor: limbs in JVM arrays, arithmetic on {@code threads} threads. */
    public CkksContext(CkksParameters parameters, int threads) {
        this(parameters, threads, p -> new HostRingExecutor(p.ring(), p.gadget()));
    }

    /**
     * Over the executor {@code executors} opens for the validated parameters (which it may keep: primes, NTT
     * tables, gadget); {@code threads} serve the host's share of the work.
     */
    public CkksContext(CkksParameters parameters, int threads, Function<SchemeParameters, RingExecutor> executors) {
        // Tasks of at least 2^13 coefficients: one limb at N >= 2^13, several on the small test rings.
        this.pool = new LimbPool(threads, Math.max(1, (1 << 13) >> parameters.logN()));
        try {
            this.params = new SchemeParameters(parameters, pool);
            this.exec = executors.apply(params);
        } catch (RuntimeException | Error e) {
            pool.close();
            throw e;
        }
        this.encoder = new CanonicalEncoder(params, exec);
        this.keygen = new CkksKeyGenerator(params);
        this.serializer = new CkksSerializer(params, exec);
    }

    /** The validated parameters (primes, ring); for benchmarks and tests in this module. */
    public SchemeParameters schemeParameters() {
        return params;
    }

    public int threads() {
        return pool.threads();
    }

    @Override
    public CkksParameters parameters() {
        return params.literal();
    }

    @Override
    public long[] chainPrimes() {
        long[] q = new long[params.maxLevel() + 1];
        for (int i = 0; i < q.length; i++) {
            q[i] = params.q(i);
        }
        return q;
    }

    @Override
    public String parameterHash() {
        return params.hash();
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException("this CKKS context is closed");
        }
    }

    @Override
    public SecretKey generateSecretKey() {
        open();
        return keygen.secretKey();
    }

    private CkksSecretKey secret(SecretKey key) {
        if (!(key instanceof CkksSecretKey sk)) {
            throw new HeException(
                    "secret key " + (key == null ? "null" : key.getClass().getName())
                            + " was not made by this CKKS scheme (ckks-cpu, ckks-cuda)");
        }
        OperandCheck.sameParameters(sk.parameterHash(), params.hash(), "secret key");
        return sk;
    }

    @Override
    public PublicKey generatePublicKey(SecretKey secretKey) {
        open();
        return keygen.publicKey(secret(secretKey));
    }

    /** With {@code bootstrapping}, keys for every slot count (see {@link Bootstrapper#everySlotCount}). */
    @Override
    public EvaluationKeys generateEvaluationKeys(
            SecretKey secretKey, Set<Integer> rotationSteps, boolean conjugation, boolean bootstrapping) {
        return generateEvaluationKeys(
                secretKey, rotationSteps, conjugation, bootstrapping ? Bootstrapper.everySlotCount(params) : Set.of());
    }

    @Override
    public EvaluationKeys generateEvaluationKeys(
            SecretKey secretKey, Set<Integer> rotationSteps, boolean conjugation, Set<Integer> bootstrapSlots) {
        open();
        CkksSecretKey sk = secret(secretKey);
        boolean bootstrapping = !bootstrapSlots.isEmpty();
        if (bootstrapping) {
            Set<Integer> all = new TreeSet<>(rotationSteps);
            all.addAll(Bootstrapper.rotationSteps(params, bootstrapSlots));
            rotationSteps = all;
            conjugation = true;
        }
        SwitchingKey relin = keygen.relinearizationKey(sk);
        Map<Integer, SwitchingKey> rotations = new HashMap<>();
        for (int step : rotationSteps) {
            int s = Math.floorMod(step, params.slots());
            if (s != 0 && !rotations.containsKey(s)) {
                rotations.put(s, keygen.galoisKey(sk, keygen.rotationElement(s)));
            }
        }
        SwitchingKey conj = conjugation ? keygen.galoisKey(sk, keygen.conjugationElement()) : null;
        EncapsulationKeys encapsulation =
                bootstrapping && BootstrapParameters.encapsulates(params) ? keygen.encapsulationKeys(sk) : null;
        return new CkksEvaluationKeys(
                relin, rotations, conj, params.hash(), sk.keySetId(), bootstrapSlots, encapsulation);
    }

    @Override
    public long evaluationKeyBytes(Set<Integer> rotationSteps, boolean conjugation, Set<Integer> bootstrapSlots) {
        open();
        Set<Integer> steps = new TreeSet<>();
        for (int step : rotationSteps) {
            steps.add(Math.floorMod(step, params.slots()));
        }
        if (!bootstrapSlots.isEmpty()) {
            for (int step : Bootstrapper.rotationSteps(params, bootstrapSlots)) {
                steps.add(Math.floorMod(step, params.slots()));
            }
            conjugation = true;
        }
        steps.remove(0);
        // a key: per digit, (b, a) over every prime of Q and P, N coefficients of 8 bytes (the encapsulation keys,
        // on q_0·p_0 alone, are too small to count)
        long key = (long) params.gadget().digitCount()
                * 2
                * (params.ring().qCount() + params.ring().pCount())
                * params.ring().n()
                * Long.BYTES;
        return key * (1 + steps.size() + (conjugation ? 1 : 0));
    }

    @Override
    public Encoder encoder() {
        open();
        return encoder;
    }

    @Override
    public Encryptor encryptor(PublicKey publicKey) {
        open();
        if (!(publicKey instanceof CkksPublicKey pk)) {
            throw new HeException("public key "
                    + (publicKey == null ? "null" : publicKey.getClass().getName())
                    + " was not made by this CKKS scheme (ckks-cpu, ckks-cuda)");
        }
        OperandCheck.sameParameters(pk.parameterHash(), params.hash(), "public key");
        return new CkksEncryptor(params, exec, pk, null);
    }

    @Override
    public Encryptor encryptor(SecretKey secretKey) {
        open();
        return new CkksEncryptor(params, exec, null, secret(secretKey));
    }

    @Override
    public Decryptor decryptor(SecretKey secretKey) {
        open();
        return new CkksDecryptor(params, exec, secret(secretKey));
    }

    @Override
    public Evaluator evaluator(EvaluationKeys keys, SecretKey onDemandKeys) {
        open();
        if (!(keys instanceof CkksEvaluationKeys ek)) {
            throw new HeException("evaluation keys "
                    + (keys == null ? "null" : keys.getClass().getName())
                    + " were not made by this CKKS scheme (ckks-cpu, ckks-cuda)");
        }
        OperandCheck.sameParameters(ek.parameterHash(), params.hash(), "evaluation keys");
        CkksSecretKey sk = null;
        if (onDemandKeys != null) {
            sk = secret(onDemandKeys);
            OperandCheck.sameKeySet(sk, ek.keySetId(), "on-demand secret key");
        }
        return new CkksEvaluator(params, exec, encoder, keygen, ek, sk, bootstrapCircuits);
    }

    /** The bootstrapping circuits this context's evaluators share (for reports and tests). */
    public Bootstrapper.Circuits bootstrapCircuits() {
        return bootstrapCircuits;
    }

    @Override
    public HeSerializer serializer() {
        return serializer;
    }

    @Override
    public Runnable nttOfOneLimb() {
        return exec.nttOfOneLimb();
    }

    @Override
    public void drain() {
        exec.synchronize();
    }

    @Override
    public String device() {
        return exec.describe();
    }

    @Override
    public long deviceMemoryBytes() {
        return exec.deviceMemoryBytes();
    }

    @Override
    public void close() {
        closed = true;
        try {
            exec.close();
        } finally {
            pool.close();
        }
    }

    @Override
    public String toString() {
        return "CkksContext[N=2^" + params.literal().logN() + ", levels=" + params.maxLevel() + ", hash="
                + params.hash() + ", threads=" + pool.threads() + "]";
    }
}
