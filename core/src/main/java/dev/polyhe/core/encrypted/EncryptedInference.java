package dev.polyhe.core.encrypted;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.DeviceQueue;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.api.model.ModelOutput;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.PlainTensor;
import dev.polyhe.core.engine.encrypted.Accounting;
import dev.polyhe.core.engine.encrypted.EncryptedEngine;
import dev.polyhe.core.engine.encrypted.EncryptedParameters;
import dev.polyhe.core.engine.encrypted.EncryptedProbe;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.engine.encrypted.EncryptedTensorFormat;
import dev.polyhe.core.engine.encrypted.Layout;
import dev.polyhe.core.engine.encrypted.NoiseFlooding;
import dev.polyhe.core.engine.encrypted.Packing;
import dev.polyhe.core.engine.encrypted.PrimitiveKind;
import dev.polyhe.core.engine.encrypted.RecordedParameters;
import dev.polyhe.core.engine.encrypted.WeightCache;
import dev.polyhe.core.engine.symbolic.SymbolicContext;
import dev.polyhe.core.engine.trace.ErrorTrace;
import dev.polyhe.core.engine.trace.ErrorTracingOps;
import dev.polyhe.core.engine.trace.Paired;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.LoadedModel;
import dev.polyhe.core.inference.SiteDomains;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Encrypted inference split the way it is deployed: the client generates keys, embeds and encrypts its input
 * and decrypts the result; the server, holding evaluation keys only, runs the polynomial model (the same model
 * code as every other engine) on the ciphertexts.
 */
public final class EncryptedInference {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EncryptedInference.class);

    private final InferenceService service;
    private final boolean searchPlans;
    private final PlanCache plans = new PlanCache();
    /** Per opened key set (its context), the weights its runs encoded; none while the budget is 0. */
    private final Map<HeContext, WeightCache> weights =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private volatile long weightBudget;
    /** Set by {@link #keepWeightsByMemory}: the budget follows where each key set's context keeps its plaintexts. */
    private volatile boolean weightBudgetByMemory;

    public EncryptedInference(InferenceService service) {
        this(service, !"greedy".equals(System.getProperty(PLANNER_PROPERTY)));
    }

    private EncryptedInference(InferenceService service, boolean searchPlans) {
        this.service = service;
        this.searchPlans = searchPlans;
    }

    /** The same, placing bootstraps greedily, without a planner's search (to compare). */
    public EncryptedInference greedy() {
        return new EncryptedInference(service, false);
    }

    /**
     * Client: a fresh key set whose rotation keys serve inputs of up to {@code maxTokens} tokens.
     *
     * @param maxColumns the model's widest activation (hidden or feed-forward size): activations are packed in
     *     column blocks of up to that many columns (as many as the ring holds); 1 packs one column per ciphertext
     */
    public KeySet generateKeys(
            HeBackend backend, CkksParameters params, int maxTokens, int maxColumns, boolean bootstrapping) {
        HeContext ctx = backend.open(params);
        Packing packing;
        Set<Integer> bootstrapSlots;
        try {
            packing = packing(params, maxTokens, maxColumns);
            bootstrapSlots = bootstrapping ? packing.ciphertextSlots() : Set.of();
            requireHeap(
                    ctx.evaluationKeyBytes(packing.rotationSteps(), true, bootstrapSlots),
                    Runtime.getRuntime().maxMemory());
        } catch (RuntimeException e) {
            ctx.close();
            throw e;
        }
        SecretKey sk = ctx.generateSecretKey();
        LOG.debug(
                "generating keys on {}: N=2^{}, {} levels, {} rotation steps, bootstrapping {}",
                backend.name(),
                params.logN(),
                params.maxLevel(),
                packing.rotationSteps().size(),
                bootstrapping);
        // bootstrapping keys for the packing's slot count only: every count's would weigh far more on large rings;
        // the conjugation (one key) halves the attention's row shifts (RowShifts)
        EvaluationKeys keys = ctx.generateEvaluationKeys(sk, packing.rotationSteps(), true, bootstrapSlots);
        return new KeySet(backend.name(), ctx, sk, keys, packing, backend.dataFormat());
    }

    /**
     * A key set for planning ({@link SymbolicContext}): the same packing and bootstrapping as
     * {@link #generateKeys}, no key material and no arithmetic, so that {@link #evaluate} runs a model of any size in
     * seconds and its accounting shows where every bootstrap goes and why. The backend is opened only to read its
     * chain's primes (their drift decides where scales must be aligned).
     */
    public KeySet planningKeys(
            HeBackend backend, CkksParameters params, int maxTokens, int maxColumns, boolean bootstrapping) {
        Packing packing = packing(params, maxTokens, maxColumns);
        long[] primes;
        try (HeContext real = backend.open(params)) {
            primes = real.chainPrimes();
        }
        return symbolicKeySet(
                backend.name(),
                params,
                primes,
                packing,
                packing.rotationSteps(),
                true,
                bootstrapping,
                bootstrapping ? packing.ciphertextSlots() : Set.of());
    }

    /** The packing of keys for {@code maxTokens} tokens, refused when the ring has too few slots for them. */
    private static Packing packing(CkksParameters params, int maxTokens, int maxColumns) {
        int slots = Packing.packingSlotsFor(maxTokens);
        if (slots > params.slots()) {
            throw new IllegalArgumentException(
                    maxTokens + " tokens need " + slots + " slots but N=2^" + params.logN() + " has " + params.slots());
        }
        return Packing.blocks(slots, maxColumns, params.slots());
    }

    /**
     * Keys of a {@link SymbolicContext}: the rotations, conjugation and bootstrapping given (bootstrapping with no
     * slot count named serves every count, as a backend's keys may).
     */
    private static KeySet symbolicKeySet(
            String backend,
            CkksParameters params,
            long[] primes,
            Packing packing,
            Set<Integer> rotationSteps,
            boolean conjugation,
            boolean bootstrapping,
            Set<Integer> bootstrapSlots) {
        SymbolicContext ctx = new SymbolicContext(params, primes, EncryptedEngine.topLevel(params));
        SecretKey sk = ctx.generateSecretKey();
        EvaluationKeys keys = bootstrapSlots.isEmpty()
                ? ctx.generateEvaluationKeys(sk, rotationSteps, conjugation, bootstrapping)
                : ctx.generateEvaluationKeys(sk, rotationSteps, conjugation, bootstrapSlots);
        return new KeySet(backend, ctx, sk, keys, packing);
    }

    /**
     * Refuses, before a key is made, evaluation keys of {@code keyBytes} (-1: unknown) that would take more than 90 %
     * of a heap of {@code maxHeap} bytes: better one clear line now than an OutOfMemoryError minutes later.
     *
     * @throws HeException naming both figures and how to give the JVM more
     */
    public static void requireHeap(long keyBytes, long maxHeap) {
        if (keyBytes > 0 && keyBytes > 0.9 * maxHeap) {
            double gib = 1L << 30;
            throw new HeException(String.format(
                    java.util.Locale.ROOT,
                    "the evaluation keys need about %.1f GiB but "
                            + "this JVM's heap is at most %.1f GiB; give it at least %d GiB "
                            + "(-Xmx%dg; for the polyhe command "
                            + "POLYHE_JAVA_OPTS=-Xmx%dg), or choose a smaller preset or fewer tokens",
                    keyBytes / gib,
                    maxHeap / gib,
                    (long) Math.ceil(keyBytes * 1.3 / gib),
                    (long) Math.ceil(keyBytes * 1.3 / gib),
                    (long) Math.ceil(keyBytes * 1.3 / gib)));
        }
    }

    /** Client: the embedded input, encrypted column by column. */
    public EncryptedTensor encrypt(KeySet keys, Model model, ModelInput input) {
        Matrix embeddings = model.embed(input);
        if (embeddings.rows() > keys.packingSlots()) {
            throw new IllegalArgumentException("the input has " + embeddings.rows() + " tokens but the keys were made "
                    + "for at most " + keys.packingSlots() + "; generate keys with a larger --max-tokens");
        }
        return keys.engine().fromPlain(embeddings);
    }

    /**
     * What the server sends back, and how it went.
     *
     * @param planned the bootstrap plan followed; null where the keys do not bootstrap (nothing to plan)
     */
    public record ServerResult(
            ModelOutput<EncryptedTensor> output,
            Accounting accounting,
            double seconds,
            BootstrapPlanner.Planned planned) {}

    /**
     * Keeps up to {@code bytes} of encoded weight diagonals per key set across this instance's runs (0, the default:
     * none), so that a served model's warm query skips encoding them ({@link WeightCache}). Returns this.
     */
    public EncryptedInference keepWeights(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("weight cache of " + bytes + " bytes: give 0 or more");
        }
        this.weightBudget = bytes;
        this.weightBudgetByMemory = false;
        return this;
    }

    /**
     * Keeps encoded weight diagonals per key set across runs, as {@link #keepWeights} does, within a budget set by the
     * memory that holds them: a quarter of a device's where the backend keeps plaintexts on one (a GPU), else
     * {@code heapBytes}. Returns this.
     */
    public EncryptedInference keepWeightsByMemory(long heapBytes) {
        keepWeights(heapBytes);
        this.weightBudgetByMemory = true;
        return this;
    }

    /** The weight budget for a key set's context: see {@link #keepWeightsByMemory}. */
    static long weightBudget(HeContext ctx, long heapBytes, boolean byMemory) {
        long device = byMemory ? ctx.deviceMemoryBytes() : 0;
        // per served model and key set: the rest holds the keys (6 GB at N = 2^16), the ciphertexts in flight and
        // another model's or key set's cache
        return device > 0 ? device / 4 : heapBytes;
    }

    private void attachWeights(KeySet keys, EncryptedEngine engine) {
        HeContext ctx = keys.context();
        long budget = weightBudget(ctx, weightBudget, weightBudgetByMemory);
        if (budget > 0) {
            engine.useWeightCache(weights.computeIfAbsent(
                    ctx,
                    c -> new WeightCache(
                            budget, (long) Long.BYTES << c.parameters().logN())));
        }
    }

    /** Set to {@code greedy} to skip planning and place bootstraps greedily (to compare, or to save the planning). */
    public static final String PLANNER_PROPERTY = "polyhe.planner";

    /**
     * The bootstrap plan for {@code model} on {@code embeddings} ({@link BootstrapPlanner}), made on symbolic runs
     * of the same parameters and packing as {@code keys}; greedy placement's alone where planning is switched off
     * ({@value #PLANNER_PROPERTY}{@code =greedy}); null where the keys do not bootstrap.
     */
    public BootstrapPlanner.Planned plan(
            KeySet keys, LoadedModel model, EncryptedTensor embeddings, Calibration calibration) {
        return plan(keys, model, embeddings, calibration, null);
    }

    /** {@link #plan} for a model whose parameters its owner encrypted (null: in the clear); such plans are not kept. */
    public BootstrapPlanner.Planned plan(
            KeySet keys,
            LoadedModel model,
            EncryptedTensor embeddings,
            Calibration calibration,
            EncryptedParameters parameters) {
        EvaluationKeys real = keys.evaluationKeys();
        if (real == null || !real.hasBootstrapping()) {
            return null;
        }
        if (keys.context() instanceof SymbolicContext || parameters != null) {
            // --explain-plan: every time, nothing kept
            return planAfresh(keys, model, embeddings, calibration, parameters);
        }
        return plans.get(
                keys, model, embeddings, calibration, () -> planAfresh(keys, model, embeddings, calibration, null));
    }

    private BootstrapPlanner.Planned planAfresh(
            KeySet keys,
            LoadedModel model,
            EncryptedTensor embeddings,
            Calibration calibration,
            EncryptedParameters parameters) {
        KeySet planning = planningKeysLike(keys);
        var nonlinearities = service.polynomialNonlinearities(calibration, false);
        BootstrapPlanner.Planned planned = new BootstrapPlanner(plan -> {
                    EncryptedEngine engine = planning.engine();
                    engine.follow(plan);
                    if (parameters != null) {
                        engine.useParameters(engine.likeOf(parameters));
                    }
                    ModelOutput<EncryptedTensor> out = model.model()
                            .forward(
                                    engine,
                                    withInputRange(engine, engine.likeOf(embeddings), calibration),
                                    nonlinearities);
                    engine.accounting().outputs(outputs(engine, out));
                    return engine.accounting();
                })
                .plan(searchPlans);
        LOG.debug("{}", planned.describe());
        return planned;
    }

    /**
     * Client, the model's owner: every parameter a server's run of {@code model} takes (linear maps' weights and
     * biases, LayerNorm's gains and shifts, by site), recorded on a planning run and encrypted under {@code keys}, each
     * at the level the planned run consumes it at ({@link #consumptionLevels}; THOR's rule: a parameter carries no
     * limb the run would drop). The keys need column blocks ({@code --max-columns}).
     */
    public EncryptedParameters encryptParameters(
            KeySet keys, LoadedModel model, Calibration calibration, RecordedParameters.Progress progress) {
        if (!keys.clientSide()) {
            throw new IllegalArgumentException("encrypting a model needs the owner's key set, with its secret key");
        }
        if (keys.packing().columnsPerCiphertext() == 1) {
            throw new IllegalArgumentException("encrypted weights need column blocks: generate the keys with "
                    + "--max-columns (the model's widest activation), not one column per ciphertext");
        }
        KeySet planning = planningKeysLike(keys);
        RecordedParameters recorded = record(planning, model, calibration);
        int top = EncryptedEngine.topLevel(keys.context().parameters());
        Map<String, Integer> levels = consumptionLevels(planning, recorded, model, calibration);
        return recorded.encrypt(keys.engine(), site -> Math.min(top, levels.getOrDefault(site, top)), progress);
    }

    /**
     * The level each recorded parameter is consumed at in the run a server plans for the keys' widest query (every
     * packed row a token): the parameters encrypted symbolically at the top level, the bootstraps planned on them as a
     * server plans them, and that plan run once observing the levels ({@link EncryptedEngine#observeLevels}). A
     * server's own plan for another query length may consume a parameter higher up; it then runs that map with fewer
     * levels (the planner sees the parameters' levels, so it may place a bootstrap more), never wrong.
     */
    private Map<String, Integer> consumptionLevels(
            KeySet planning, RecordedParameters recorded, LoadedModel model, Calibration calibration) {
        int top = EncryptedEngine.topLevel(planning.context().parameters());
        EncryptedEngine engine = planning.engine();
        EncryptedParameters symbolic = recorded.encrypt(engine, top, (site, done, total) -> {});
        EncryptedTensor embeddings = engine.fromPlain(
                Matrix.zeros(planning.packingSlots(), model.model().info().hiddenSize()));
        BootstrapPlanner.Planned planned = plan(planning, model, embeddings, calibration, symbolic);
        EncryptedEngine run = planning.engine();
        if (planned != null) {
            run.follow(planned.plan());
        }
        run.useParameters(symbolic);
        Map<String, Integer> levels = new java.util.HashMap<>();
        run.observeLevels(levels);
        model.model()
                .forward(
                        run,
                        withInputRange(run, embeddings, calibration),
                        service.polynomialNonlinearities(calibration, false));
        return levels;
    }

    /** Every parameter a run of {@code model} takes, by site, from a run on {@code planning}'s symbolic engine. */
    private RecordedParameters record(KeySet planning, LoadedModel model, Calibration calibration) {
        EncryptedEngine engine = planning.engine();
        RecordedParameters recorded = new RecordedParameters();
        engine.recordParameters(recorded);
        int tokens = Math.min(planning.packingSlots(), 2);
        Matrix zeros = Matrix.zeros(tokens, model.model().info().hiddenSize());
        model.model()
                .forward(
                        engine,
                        withInputRange(engine, engine.fromPlain(zeros), calibration),
                        service.polynomialNonlinearities(calibration, false));
        return recorded;
    }

    /**
     * Server: an encrypted model folder ({@link EncryptedModelFolder}) checked in full before it is kept, without
     * its key set's evaluation keys: the manifest, the config and magnitude checkpoint (they load as a model of this
     * service's attention), the sites that model's run takes against those the manifest lists (each present, of its
     * shape, none extra), and every ciphertext of the parameter file (read through the backend's checked
     * deserializer and dropped: the memory of one), which must carry exactly the manifest's sites under its key set.
     *
     * @param backend a backend that reads the key set's ciphertexts
     * @param keyBackend the backend the key set names (its files carry that name)
     * @return the manifest; whether it matches a given key set is {@link EncryptedModelFolder.Manifest#mismatch}'s
     * @throws IllegalArgumentException, CheckpointException or HeException naming the first thing wrong
     */
    public EncryptedModelFolder.Manifest checkEncryptedModel(
            Path dir, HeBackend backend, String keyBackend, CkksParameters params, Packing packing) throws IOException {
        EncryptedModelFolder.Manifest manifest = EncryptedModelFolder.manifest(dir);
        LoadedModel model = service.loadEncrypted(dir);
        Calibration calibration = Calibration.read(dir.resolve(EncryptedModelFolder.CALIBRATION));
        try (HeContext ctx = backend.open(params)) {
            KeySet planning = symbolicKeySet(
                    keyBackend,
                    params,
                    ctx.chainPrimes(),
                    packing,
                    packing.rotationSteps(),
                    true,
                    true,
                    packing.ciphertextSlots());
            EncryptedModelFolder.requireSites(
                    dir, record(planning, model, calibration).shapes(), manifest.sites());
            EncryptedTensorFormat.Scan scan;
            try (InputStream in = new java.io.BufferedInputStream(
                    java.nio.file.Files.newInputStream(dir.resolve(EncryptedModelFolder.PARAMETERS)), 1 << 16)) {
                scan = EncryptedTensorFormat.scan(ctx, keyBackend, in);
            } catch (HeException e) {
                throw new HeException(EncryptedModelFolder.PARAMETERS + ": " + e.getMessage());
            }
            if (scan.identity().packingSlots() != manifest.packingSlots()
                    || !scan.identity().keySetId().equals(manifest.keySetId())) {
                throw new IllegalArgumentException(EncryptedModelFolder.PARAMETERS + " was written for key set '"
                        + scan.identity().keySetId() + "' and "
                        + scan.identity().packingSlots() + " slots, but "
                        + EncryptedModelFolder.MANIFEST + " names key set '" + manifest.keySetId() + "' and "
                        + manifest.packingSlots() + ": the folder mixes files of two encryptions");
            }
            EncryptedParameters.checkCarriers(manifest.sites(), scan.ciphertexts(), packing);
        }
        return manifest;
    }

    /** A planning key set ({@link SymbolicContext}) of {@code keys}' parameters, packing and keys; itself if one. */
    private static KeySet planningKeysLike(KeySet keys) {
        HeContext context = keys.context();
        if (context instanceof SymbolicContext) {
            return keys;
        }
        EvaluationKeys real = keys.evaluationKeys();
        return symbolicKeySet(
                keys.backend(),
                context.parameters(),
                context.chainPrimes(),
                keys.packing(),
                real.rotationSteps(),
                real.hasConjugation(),
                real.hasBootstrapping(),
                real.bootstrapSlots());
    }

    /** The tensors sent to the client, the main result (the logits, where there are) last. */
    private static java.util.List<Accounting.Output> outputs(EncryptedEngine engine, ModelOutput<EncryptedTensor> out) {
        java.util.List<Accounting.Output> sent = new java.util.ArrayList<>();
        for (EncryptedTensor t : java.util.Arrays.asList(out.lastHiddenState(), out.logits())) {
            if (t != null) {
                sent.add(new Accounting.Output(t.level(), engine.decryptionFloor(t)));
            }
        }
        return sent;
    }

    /**
     * Server: the polynomial model on encrypted embeddings, with approximation domains from {@code calibration}.
     *
     * @param progress told as each block completes
     */
    public ServerResult evaluate(
            KeySet keys,
            LoadedModel model,
            EncryptedTensor embeddings,
            Calibration calibration,
            Consumer<BlockProgress> progress) {
        return evaluate(keys, model, embeddings, calibration, progress, accounting -> {});
    }

    /**
     * {@link #evaluate(KeySet, LoadedModel, EncryptedTensor, Calibration, Consumer)}, telling {@code started} the run's
     * accounting before the first operator, for a display that follows the current operator from another thread.
     */
    public ServerResult evaluate(
            KeySet keys,
            LoadedModel model,
            EncryptedTensor embeddings,
            Calibration calibration,
            Consumer<BlockProgress> progress,
            Consumer<Accounting> started) {
        return evaluate(keys, model, embeddings, calibration, null, progress, started);
    }

    /**
     * {@link #evaluate(KeySet, LoadedModel, EncryptedTensor, Calibration, Consumer, Consumer)} of a model whose
     * owner encrypted its parameters ({@link EncryptedModelFolder}; null: in the clear): every linear map and row
     * vector runs on them ({@link EncryptedEngine#useParameters}), the model itself holding only their magnitudes.
     */
    public ServerResult evaluate(
            KeySet keys,
            LoadedModel model,
            EncryptedTensor embeddings,
            Calibration calibration,
            EncryptedParameters parameters,
            Consumer<BlockProgress> progress,
            Consumer<Accounting> started) {
        BootstrapPlanner.Planned planned = plan(keys, model, embeddings, calibration, parameters);
        EncryptedEngine engine = keys.engine();
        if (planned != null) {
            engine.follow(planned.plan());
        }
        if (parameters != null) {
            engine.useParameters(parameters);
        }
        attachWeights(keys, engine);
        started.accept(engine.accounting());
        var nonlinearities = service.polynomialNonlinearities(calibration, false);
        long t0 = System.nanoTime();
        ModelOutput<EncryptedTensor> out = model.model()
                .forward(
                        engine,
                        withInputRange(engine, embeddings, calibration),
                        nonlinearities,
                        blockProgress(model, engine, keys.context(), progress));
        drain(keys.context());
        return new ServerResult(out, engine.accounting(), (System.nanoTime() - t0) / 1e9, planned);
    }

    /** A traced run: what the server would send back, and the error trace against the plaintext polynomial model. */
    public record TracedResult(ServerResult result, ErrorTrace trace) {}

    /**
     * Client-side debugging: the polynomial model run on the encrypted embeddings and, step by step beside it, in
     * plaintext; every step's result is decrypted and compared ({@link ErrorTracingOps}), and every bootstrap's input
     * and output are decrypted. It needs the secret key, so it never runs on a server; times include the decryptions.
     */
    public TracedResult evaluateTraced(
            KeySet keys,
            LoadedModel model,
            Matrix embeddings,
            Calibration calibration,
            Consumer<BlockProgress> progress) {
        EncryptedEngine engine = keys.engine();
        EncryptedTensor encryptedInput = engine.fromPlain(embeddings);
        BootstrapPlanner.Planned planned = plan(keys, model, encryptedInput, calibration);
        if (planned != null) {
            engine.follow(planned.plan());
        }
        PlainEngine plain = new PlainEngine();
        ErrorTracingOps<PlainTensor, EncryptedTensor> ops =
                new ErrorTracingOps<>(plain, engine, new EncryptedProbe(engine));
        engine.observeBootstraps((in, out, factor, bound) -> ops.bootstrap(
                in.slots(),
                in.level(),
                Math.log(in.scale()) / Math.log(2),
                engine.decryptComplex(in),
                engine.decryptComplex(out),
                factor,
                bound));
        try {
            var nonlinearities = service.polynomialNonlinearities(calibration, false);
            Paired<PlainTensor, EncryptedTensor> input = ops.pair(plain.fromPlain(embeddings), encryptedInput);
            long t0 = System.nanoTime();
            ModelOutput<Paired<PlainTensor, EncryptedTensor>> out = model.model()
                    .forward(
                            ops,
                            withInputRange(ops, input, calibration),
                            nonlinearities,
                            blockProgress(model, engine, keys.context(), progress));
            double seconds = (System.nanoTime() - t0) / 1e9;
            ModelOutput<EncryptedTensor> encrypted = new ModelOutput<>(
                    out.lastHiddenState().traced(),
                    out.logits() == null ? null : out.logits().traced());
            return new TracedResult(new ServerResult(encrypted, engine.accounting(), seconds, planned), ops.trace());
        } finally {
            engine.observeBootstraps(null);
        }
    }

    /**
     * The encrypted input with the range calibration saw for embeddings (widened by the margin), so that the engine
     * knows its magnitude from the first operation: the server never sees it otherwise.
     */
    private <M> M withInputRange(TensorOps<M> ops, M embeddings, Calibration calibration) {
        return calibration
                .inputRange()
                .map(r -> {
                    var d = new SiteDomains(service.config().margin()).real(r.min(), r.max());
                    return ops.bound(embeddings, d.lo(), d.hi());
                })
                .orElse(embeddings);
    }

    /**
     * A device backend returns before its work is done ({@link DeviceQueue}): the host waits for it where a time is
     * read, so a block's time and the run's are the device's, at one synchronization a block.
     */
    private static void drain(HeContext context) {
        if (context instanceof DeviceQueue queue) {
            queue.drain();
        }
    }

    private static Model.LayerObserver blockProgress(
            LoadedModel model, EncryptedEngine engine, HeContext context, Consumer<BlockProgress> progress) {
        int layers = model.model().info().layers();
        long start = System.nanoTime();
        return new Model.LayerObserver() {
            @Override
            public <M> void blockDone(TensorOps<M> ops, int layer, M output) {
                drain(context);
                progress.accept(new BlockProgress(
                        layer + 1,
                        layers,
                        ops.depth(output),
                        engine.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.BOOTSTRAP, 0L),
                        (System.nanoTime() - start) / 1e9));
            }
        };
    }

    /** Writes tensors (with metadata such as the model type) for the other side. */
    public static void write(KeySet keys, Map<String, String> metadata, Map<String, EncryptedTensor> tensors, Path file)
            throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            EncryptedTensorFormat.write(keys.context(), keys.backend(), keys.packingSlots(), metadata, tensors, out);
        }
    }

    /** Reads tensors written for this key set; a file from another key set or parameter set is refused. */
    public static EncryptedTensorFormat.Contents read(KeySet keys, Path file) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            EncryptedTensorFormat.Contents contents;
            try {
                contents = EncryptedTensorFormat.read(keys.context(), keys.backend(), in);
            } catch (dev.polyhe.api.he.HeException e) {
                throw new dev.polyhe.api.he.HeException(file + ": " + e.getMessage(), e);
            }
            if (contents.packingSlots() != keys.packingSlots()) {
                throw new IllegalArgumentException(file + " was packed for " + contents.packingSlots()
                        + " slots but the keys serve " + keys.packingSlots());
            }
            int b = keys.packing().columnsPerCiphertext();
            for (var t : contents.tensors().entrySet()) {
                if (t.getValue().layout() == Layout.BLOCKS && t.getValue().perCiphertext() != b) {
                    throw new IllegalArgumentException(file + ": tensor '" + t.getKey() + "' holds "
                            + t.getValue().perCiphertext() + " columns per ciphertext but the keys serve " + b);
                }
            }
            return contents;
        }
    }

    /** Client: a decrypted output tensor. */
    public Matrix decrypt(KeySet keys, EncryptedTensor tensor) {
        return keys.engine().toPlain(tensor);
    }

    /**
     * Client: a decrypted output tensor, flooded with noise when its values may be shared ({@link NoiseFlooding}).
     */
    public EncryptedEngine.Decrypted decrypt(
            KeySet keys, EncryptedTensor tensor, NoiseFlooding flooding, java.util.Random random) {
        return keys.engine().toPlain(tensor, flooding, random);
    }
}
