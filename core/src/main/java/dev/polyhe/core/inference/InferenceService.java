package dev.polyhe.core.inference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.Matrix;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.attention.AttentionMechanism;
import dev.polyhe.api.model.CheckpointException;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelArchitecture;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.api.model.ModelOutput;
import dev.polyhe.api.model.Nonlinearities;
import dev.polyhe.core.Plugins;
import dev.polyhe.core.config.ConfigException;
import dev.polyhe.core.config.InferenceConfig;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.PlainTensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs models from Hugging Face checkpoint folders: loads them through the architecture named by
 * {@code model_type}, runs the exact model ({@code plain}) or the polynomial one ({@code poly}) on the plaintext
 * engine, calibrates approximation domains, and measures the polynomial model's error against the exact one,
 * per block and at the outputs.
 */
public final class InferenceService {
    private static final int DEFAULT_P = 4;

    /**
     * What the polynomial model runs for exact softmax, the attention of every checkpoint that declares none:
     * normalize-and-square on the calibrated score range, which measured closer to softmax than Taylor + Goldschmidt
     * and follows the polynomial model encrypted, where Taylor + Goldschmidt was 0.03 off (docs/fidelity.md, "Softmax
     * checkpoints").
     */
    public static final String SOFTMAX_APPROXIMATION = "softmax-square";

    /** Taylor's exp in normalize-and-square holds to 1e-6 on [−1/2, 1/2]: scores are halved until they lie there. */
    private static final double SQUARED_EXP_RANGE = 0.5;

    private static final String EXACT_SOFTMAX = "softmax";

    private final Plugins plugins;
    private final InferenceConfig config;
    private final PluginChoice attention;
    private final String attentionSource;

    /** @param attention the exact attention of the model (already resolved from the config) */
    public InferenceService(Plugins plugins, InferenceConfig config, PluginChoice attention) {
        this(plugins, config, attention, "the config");
    }

    /** @param attentionSource why the model runs {@code attention}, as {@link #describeAttention} says it */
    public InferenceService(Plugins plugins, InferenceConfig config, PluginChoice attention, String attentionSource) {
        this.plugins = plugins;
        this.config = config;
        this.attention = attention;
        this.attentionSource = attentionSource;
        // fail now, naming the option, rather than in the middle of a run
        plugins.attention(attention);
    }

    public InferenceConfig config() {
        return config;
    }

    public PluginChoice attention() {
        return attention;
    }

    /** The same service with another attention (command-line override). */
    public InferenceService withAttention(PluginChoice a) {
        return withAttention(a, "chosen by the caller");
    }

    /** @param source why the model runs {@code a} ("--attention", "declared by the checkpoint"...) */
    public InferenceService withAttention(PluginChoice a, String source) {
        return new InferenceService(plugins, config.withAttention(a), a, source);
    }

    /**
     * The same service with the checkpoint's own attention: the one its config.json declares ({@link
     * DeclaredAttention}), else softmax, which the polynomial model runs as {@value #SOFTMAX_APPROXIMATION}.
     */
    public InferenceService withAttentionOf(Path checkpoint) {
        return DeclaredAttention.read(checkpoint)
                .map(a -> withAttention(a, DeclaredAttention.DECLARED))
                .orElseGet(() -> withAttention(PluginChoice.of(EXACT_SOFTMAX), DeclaredAttention.NONE_DECLARED));
    }

    public InferenceService withConfig(InferenceConfig c) {
        return c.attention() != null
                ? new InferenceService(plugins, c, c.attention(), "the config's inference.attention")
                : new InferenceService(plugins, c, attention, attentionSource);
    }

    /** Why the model runs its attention: the checkpoint, a flag, the config. */
    public String attentionSource() {
        return attentionSource;
    }

    /**
     * Which attention runs and why, for a command's output: {@code "power-softmax {epsilon=0.001, p=4} (declared by
     * the checkpoint)"}, or for a softmax checkpoint in the polynomial model {@code "softmax-square (the checkpoint
     * declares none: softmax, approximated by softmax-square)"}.
     *
     * @param polynomial whether the polynomial model runs (poly and ckks engines, calibrate for them, eval)
     */
    public String describeAttention(boolean polynomial) {
        PluginChoice ran = polynomial ? polynomialChoice() : attention;
        // sorted, so that the line is the same whatever order a declaration or a flag gave
        String options = ran.options().isEmpty() ? "" : " " + new TreeMap<>(ran.options());
        String approximated = ran == attention ? "" : ", approximated by " + ran.name();
        return ran.name() + options + " (" + attentionSource + approximated + ")";
    }

    /** The mechanism the polynomial model runs: the configured one, or for exact softmax its approximation. */
    private PluginChoice polynomialChoice() {
        return attention.name().equals(EXACT_SOFTMAX) ? PluginChoice.of(SOFTMAX_APPROXIMATION) : attention;
    }

    /** The model_type of a checkpoint folder's config.json. */
    public static String modelType(Path dir) {
        Path file = dir.resolve("config.json");
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new CheckpointException(
                    Files.isDirectory(dir)
                            ? "checkpoint folder " + dir + " has no config.json"
                            : "checkpoint folder " + dir + " does not exist");
        } catch (IOException e) {
            throw new CheckpointException("cannot read " + file + ": " + e.getMessage(), e);
        }
        JsonNode t = root == null ? null : root.get("model_type");
        if (t == null || !t.isTextual()) {
            throw new CheckpointException(file + ": missing required field 'model_type'");
        }
        return t.asText();
    }

    /** Loads a checkpoint with the architecture plugin its model_type names. */
    public LoadedModel load(Path dir) {
        if (EncryptedModelFolder.isEncrypted(dir)) {
            throw new CheckpointException(dir + " holds an encrypted model (its weights are ciphertexts, from "
                    + "'polyhe encrypt-model'): 'polyhe eval --model " + dir + " --keys KEYS' and 'polyhe batch "
                    + "--model' run it, and a server runs it once its tenant uploads it ('polyhe remote models "
                    + "upload'), never from --models; calibrate, encrypt and decrypt take the model folder in the "
                    + "clear");
        }
        return loadFolder(dir);
    }

    /**
     * An encrypted model folder ({@link EncryptedModelFolder}): the model holds its weights' shapes and magnitudes
     * only, and must run on an engine given the encrypted parameters.
     */
    public LoadedModel loadEncrypted(Path dir) {
        if (!EncryptedModelFolder.isEncrypted(dir)) {
            throw new CheckpointException(dir + " is not an encrypted model folder (no " + EncryptedModelFolder.MANIFEST
                    + "; make one with 'polyhe encrypt-model')");
        }
        return loadFolder(dir);
    }

    private LoadedModel loadFolder(Path dir) {
        String type = modelType(dir);
        ModelArchitecture arch;
        try {
            arch = plugins.model(type);
        } catch (IllegalArgumentException e) {
            throw new CheckpointException(
                    dir.resolve("config.json") + ": model_type '" + type + "' is not supported: " + e.getMessage());
        }
        return new LoadedModel(dir, type, arch.load(dir));
    }

    public ExactNonlinearities exactNonlinearities() {
        return new ExactNonlinearities(plugins.attention(exactAttention()));
    }

    /**
     * The configured attention as the exact model runs it: a division the user asked for (e.g. {@code
     * --attention-opt division=goldschmidt}) is the polynomial model's business ({@link #polynomialAttention}), whose
     * domain comes from the calibration; the exact model that records the calibration divides exactly. Else its
     * Goldschmidt ran on the default domain [1e-3, 100] and the calibration recorded NaN.
     */
    private PluginChoice exactAttention() {
        AttentionMechanism mechanism = plugins.attention(attention.name());
        if (!attention.options().containsKey("division")
                || !mechanism.optionNames().contains("division")) {
            return attention;
        }
        Map<String, Object> options = new LinkedHashMap<>(attention.options());
        options.put("division", "exact");
        mechanism.divisionOptionNames().forEach(options::remove);
        return new PluginChoice(attention.name(), options);
    }

    /** p of the configured PowerSoftmax (for the attention row statistics), 4 when it has none. */
    int power() {
        Object p = attention.options().get("p");
        try {
            return p == null ? DEFAULT_P : Integer.parseInt(String.valueOf(p).strip());
        } catch (NumberFormatException e) {
            return DEFAULT_P;
        }
    }

    /** Runs the exact model over {@code inputs}, recording every non-polynomial site's input range. */
    public Calibration calibrate(LoadedModel model, List<ModelInput> inputs) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("calibration needs at least one input");
        }
        CalibrationRecorder recorder =
                new CalibrationRecorder(exactNonlinearities(), power(), doubleOption("epsilon", 1e-3));
        for (ModelInput in : inputs) {
            recorder.embeddings(run(model.model(), in, recorder).embeddings());
        }
        return recorder.result(model.modelType(), inputs.size());
    }

    /**
     * The polynomial model's steps on the domains of {@code calibration}.
     *
     * @throws ConfigException when the calibration was recorded with another attention: the scores of later
     *         layers, and the x^p statistics, depend on it
     */
    public PolynomialNonlinearities polynomialNonlinearities(Calibration calibration, boolean checkDomains) {
        String exact = exactNonlinearities().attentionKernel().describe();
        if (!calibration.attention().equals(exact)) {
            throw new ConfigException("the calibration was recorded with attention " + calibration.attention()
                    + " but this model runs " + exact + "; calibrate with the same attention");
        }
        SiteDomains domains = new SiteDomains(config.margin());
        return new PolynomialNonlinearities(
                calibration,
                plugins,
                config.invSqrt(),
                config.gelu(),
                config.tanh(),
                domains,
                (site, approximations) -> polynomialAttention(site, domains, approximations),
                checkDomains);
    }

    /**
     * The configured mechanism with polynomial division ({@code attention-division} options) whose Goldschmidt
     * domain [lo, hi] covers the site's calibrated denominators: (ε + Σ x^p)/L per row, L the keys the row sees, for
     * the length-agnostic form (PowerSoftmax's default here), else ε + Σ x^p. Options the user set explicitly win.
     * Exact softmax becomes {@value #SOFTMAX_APPROXIMATION} on the site's calibrated score range.
     */
    AttentionKernel polynomialAttention(SiteCalibration site, SiteDomains domains, Approximations approximations) {
        PluginChoice choice = polynomialChoice();
        AttentionMechanism mechanism = plugins.attention(choice.name());
        Map<String, Object> options = new LinkedHashMap<>();
        if (mechanism.optionNames().contains("division")) {
            config.attentionDivision().forEach((k, v) -> {
                if (mechanism.optionNames().contains(k)) {
                    options.put(k, v);
                }
            });
        }
        options.putAll(choice.options());
        if (choice != attention) { // softmax, approximated on the calibrated scores (with the margin) and no wider
            Domain scores = domains.real(site.min(), site.max());
            double range = Math.max(Math.abs(scores.lo()), Math.abs(scores.hi()));
            int squarings = (int) Math.ceil(Math.log(range / SQUARED_EXP_RANGE) / Math.log(2));
            options.put("range", range);
            options.put("squarings", Math.max(4, Math.min(12, squarings)));
        }
        // The paper's inference form (Fig. 2, right; Eq. 7): PowerSoftmax's polynomial division on each row's mean,
        // the same weights as on its sum but on a domain that does not widen along a sequence (docs/fidelity.md,
        // "Each row divided by its own length"). Not where the calibration predates per-row statistics (its domain
        // would have to span every length), nor where the user chose.
        if (mechanism.optionNames().contains("length-agnostic")
                && !choice.options().containsKey("length-agnostic")
                && site.rowVisibleMeanMin() != null) {
            options.put("length-agnostic", true);
        }
        // lo/hi mean the domain of ε + Σx^p only for the PowerSoftmax family (the mechanisms with a 'division'
        // option); baselines take their domains from the options the user gives
        if (mechanism.optionNames().containsAll(List.of("division", "lo", "hi"))
                && !choice.options().containsKey("lo")
                && !choice.options().containsKey("hi")
                && site.rowPowerSumMin() != null) {
            double eps = doubleOption("epsilon", 1e-3);
            boolean lengthAgnostic = choice.name().contains("length-agnostic")
                    || Boolean.parseBoolean(String.valueOf(options.getOrDefault("length-agnostic", "false")));
            int p = power();
            Domain d = !lengthAgnostic
                    ? domains.powers(site.rowPowerSumMin() + eps, site.rowPowerSumMax() + eps, p)
                    : site.rowVisibleMeanMin() != null
                            ? domains.powers(site.rowVisibleMeanMin(), site.rowVisibleMeanMax(), p)
                            // a calibration from before per-row statistics: (ε + Σ)/L_t for any L_t from 1 to the
                            // longest row
                            : domains.powers(
                                    (site.rowPowerSumMin() + eps) / site.maxKeys(), site.rowPowerSumMax() + eps, p);
            options.put("lo", d.lo());
            options.put("hi", d.hi());
        }
        AttentionKernel kernel =
                mechanism.create(new PluginChoice(choice.name(), options).toOptions("attention"), approximations);
        if (!kernel.polynomial()) {
            throw new ConfigException("attention " + kernel.describe() + " is not a polynomial, so the poly engine "
                    + "cannot use it; choose power-softmax (its division becomes Goldschmidt), "
                    + "power-softmax-length-agnostic or a polynomial baseline");
        }
        return kernel;
    }

    private double doubleOption(String key, double fallback) {
        Object v = attention.options().get(key);
        try {
            return v == null ? fallback : Double.parseDouble(String.valueOf(v).strip());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    /** One forward pass on a fresh plaintext engine with the given non-polynomial steps. */
    public InferenceResult run(Model model, ModelInput input, Nonlinearities nonlinearities) {
        PlainEngine engine = new PlainEngine();
        Matrix embeddings;
        try {
            embeddings = model.embed(input);
        } catch (IllegalArgumentException e) {
            // embed() validates what the client supplies (ids in the vocabulary, image shape, length)
            throw new InvalidInputException(e.getMessage(), e);
        }
        List<Matrix> layers = new ArrayList<>();
        Model.LayerObserver observer = new Model.LayerObserver() {
            @Override
            public <M> void blockDone(TensorOps<M> ops, int layer, M output) {
                layers.add(ops.toPlain(output));
            }
        };
        ModelOutput<PlainTensor> out = model.forward(engine, engine.fromPlain(embeddings), nonlinearities, observer);
        return new InferenceResult(
                embeddings,
                engine.toPlain(out.lastHiddenState()),
                out.logits() == null ? null : engine.toPlain(out.logits()),
                List.copyOf(layers),
                engine.maxDepth(),
                engine.multiplications(),
                engine.nonPolynomialCalls());
    }

    /** Runs every input with the exact model. */
    public List<InferenceResult> runExact(LoadedModel model, List<ModelInput> inputs) {
        ExactNonlinearities nl = exactNonlinearities();
        return inputs.stream().map(in -> run(model.model(), in, nl)).toList();
    }

    /** Both models over the same inputs, and the errors of the polynomial one against the exact one. */
    public record Comparison(
            List<InferenceResult> exact, List<InferenceResult> polynomial, PolynomialErrorReport errors) {}

    public Comparison compare(LoadedModel model, List<ModelInput> inputs, Calibration calibration) {
        if (!calibration.modelType().equals(model.modelType())) {
            throw new ConfigException("the calibration was recorded for model_type '" + calibration.modelType()
                    + "', not '" + model.modelType() + "'");
        }
        List<InferenceResult> exact = runExact(model, inputs);
        PolynomialNonlinearities poly = polynomialNonlinearities(calibration, true);
        List<InferenceResult> approx =
                inputs.stream().map(in -> run(model.model(), in, poly)).toList();
        ErrorStats hidden = ErrorStats.NONE;
        ErrorStats logits = ErrorStats.NONE;
        List<ErrorStats> layers = new ArrayList<>();
        int depth = 0;
        for (int i = 0; i < inputs.size(); i++) {
            InferenceResult e = exact.get(i);
            InferenceResult p = approx.get(i);
            hidden = hidden.combine(ErrorStats.between(p.lastHiddenState(), e.lastHiddenState()));
            if (e.logits() != null) {
                logits = logits.combine(ErrorStats.between(p.logits(), e.logits()));
            }
            for (int l = 0; l < e.layerOutputs().size(); l++) {
                ErrorStats s = ErrorStats.between(
                        p.layerOutputs().get(l), e.layerOutputs().get(l));
                if (layers.size() <= l) {
                    layers.add(s);
                } else {
                    layers.set(l, layers.get(l).combine(s));
                }
            }
            depth = Math.max(depth, p.maxDepth());
        }
        return new Comparison(
                exact,
                approx,
                new PolynomialErrorReport(
                        hidden, logits, List.copyOf(layers), depth, poly.outOfDomain(), poly.describeSites()));
    }
}
