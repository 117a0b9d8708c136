package dev.polyhe.core;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.encrypted.OutputAgreement;
import dev.polyhe.core.engine.encrypted.EncryptedParameters;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.InferenceResult;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.LoadedModel;
import dev.polyhe.core.inference.ModelInputs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Encrypted inference on one checkpoint, in both roles. The client generates keys, encrypts its input and
 * decrypts the answer; the server, holding {@link ServerKeys} only, evaluates the polynomial model on the
 * ciphertexts. Made by {@link PolyHe#privateInference}:
 *
 * <pre>{@code
 * try (PolyHe polyhe = PolyHe.builder().threads(4).build()) {
 *     PrivateInference model = polyhe.privateInference(Path.of("models/tiny-pythia"), "ckks-cpu");
 *     List<ModelInput> inputs = model.readInputs(Path.of("models/tiny-pythia/input.json"));
 *     Calibration domains = model.calibrate(inputs);
 *     try (ClientKeys keys = model.generateKeys("N16-boot-128", 16, true)) {               // client
 *         PrivateInference.EncryptedQuery query = model.encrypt(keys, inputs.get(0));       // client
 *         PrivateInference.EncryptedAnswer answer = model.evaluate(keys.serverKeys(), query, domains,
 *                 event -> System.err.println(event));                                      // server
 *         PrivateInference.Prediction prediction = model.decrypt(keys, answer);            // client
 *     }
 * }
 * }</pre>
 */
public final class PrivateInference {
    private final InferenceService service;
    private final LoadedModel model;
    private final HeBackend backend;
    private final EncryptedInference encrypted;
    private final PolyHe owner;
    /** An encrypted model's folder (its weights are ciphertexts); null for a checkpoint in the clear. */
    private final Path encryptedModel;
    /** The encrypted model's parameters, read once for the one key set they run with, and that key set's id. */
    private EncryptedParameters parameters;

    private String parametersKeySet;

    PrivateInference(
            InferenceService service, LoadedModel model, HeBackend backend, PolyHe owner, Path encryptedModel) {
        this.owner = owner;
        this.service = service;
        this.model = model;
        this.backend = backend;
        this.encrypted = new EncryptedInference(service);
        this.encryptedModel = encryptedModel;
    }

    /**
     * Whether this is an encrypted model ({@code polyhe encrypt-model}'s folder, the paper's App. H): the server
     * runs it with the key set it was encrypted under; the client embeds, encrypts and checks with the model in the
     * clear.
     */
    public boolean encryptedWeights() {
        return encryptedModel != null;
    }

    /** The model's owner refused an operation that needs the weights in the clear. */
    private void requireWeights(String what) {
        if (encryptedModel != null) {
            throw new IllegalStateException(encryptedModel + " holds an encrypted model: " + what + " needs the "
                    + "weights in the clear; open the owner's checkpoint for it");
        }
    }

    /** A ciphertext input, made by the client for the server (opaque: the engine's tensor stays internal). */
    public static final class EncryptedQuery {
        private final EncryptedTensor embeddings;

        EncryptedQuery(EncryptedTensor embeddings) {
            this.embeddings = embeddings;
        }

        EncryptedTensor embeddings() {
            return embeddings;
        }
    }

    /** The server's answer, with its evaluation time and bootstrap count (NaN and -1 when read from a file). */
    public static final class EncryptedAnswer {
        private final EncryptedTensor lastHiddenState;
        private final EncryptedTensor logits;
        private final double seconds;
        private final long bootstraps;

        EncryptedAnswer(EncryptedTensor lastHiddenState, EncryptedTensor logits, double seconds, long bootstraps) {
            this.lastHiddenState = lastHiddenState;
            this.logits = logits;
            this.seconds = seconds;
            this.bootstraps = bootstraps;
        }

        EncryptedTensor lastHiddenState() {
            return lastHiddenState;
        }

        EncryptedTensor logits() {
            return logits;
        }

        public double seconds() {
            return seconds;
        }

        public long bootstraps() {
            return bootstraps;
        }
    }

    /** Decrypted outputs in Hugging Face's layout ({@code logits} null for a model without a head). */
    public record Prediction(Matrix lastHiddenState, Matrix logits) {
        /** Agreement of these outputs (logits when both have them) with a reference, e.g. the plaintext model. */
        public Agreement agreementWith(Prediction reference) {
            OutputAgreement a = logits != null && reference.logits() != null
                    ? OutputAgreement.between(logits, reference.logits())
                    : OutputAgreement.between(lastHiddenState, reference.lastHiddenState());
            return new Agreement(a.mse(), a.maxAbs(), a.samePrediction());
        }
    }

    /** Mean squared error, max absolute difference, and whether every row predicts the same class/token. */
    public record Agreement(double mse, double maxAbs, boolean samePrediction) {}

    /** Typed progress of an evaluation, told to the listener as it happens. */
    public sealed interface Event permits BlockDone {}

    /** A transformer block finished: which of how many, bootstraps so far, seconds since evaluation began. */
    public record BlockDone(int block, int blocks, long bootstraps, double elapsedSeconds) implements Event {}

    /** The checkpoint's model_type. */
    public String modelType() {
        return model.modelType();
    }

    /**
     * The attention the encrypted model runs and why, e.g. {@code "softmax-square (the checkpoint declares none:
     * softmax, approximated by softmax-square)"}.
     */
    public String attention() {
        return service.describeAttention(true);
    }

    /**
     * Inputs from a JSON file ({@code input_ids}, {@code text} with the checkpoint's tokenizer, {@code pixel_values}).
     */
    public List<ModelInput> readInputs(Path file) {
        return ModelInputs.read(file, model.model());
    }

    /** The approximation domains, from the exact model on sample inputs (client or model owner). */
    public Calibration calibrate(List<ModelInput> samples) {
        requireWeights("calibrating");
        return service.calibrate(model, samples);
    }

    /**
     * Client: a fresh key set on a preset of the backend, for inputs of up to {@code maxTokens} tokens, packed for
     * the model's widest activation; with bootstrapping keys when the model is deeper than the chain.
     */
    public ClientKeys generateKeys(String preset, int maxTokens, boolean bootstrapping) {
        var info = model.model().info();
        return owner.track(new ClientKeys(
                encrypted.generateKeys(
                        backend,
                        backend.preset(preset),
                        maxTokens,
                        Math.max(info.hiddenSize(), info.intermediateSize()),
                        bootstrapping),
                owner));
    }

    /** Client: a key folder written by {@link ClientKeys#write} or {@code polyhe keys generate}. */
    public ClientKeys loadClientKeys(Path dir) throws IOException {
        return owner.track(new ClientKeys(KeyFiles.readClient(dir, backend), owner));
    }

    /**
     * Server: a key folder without the secret key; parameters below 128 bits are refused unless accepted.
     */
    public ServerKeys loadServerKeys(Path dir, boolean acceptInsecure) throws IOException {
        return owner.track(new ServerKeys(KeyFiles.readServer(dir, backend, acceptInsecure), true, owner));
    }

    /** Client: the input embedded (token lookup or patches) and encrypted. */
    public EncryptedQuery encrypt(ClientKeys keys, ModelInput input) {
        requireWeights("embedding an input");
        return new EncryptedQuery(encrypted.encrypt(keys.keySet(), model.model(), input));
    }

    /**
     * Server: the polynomial model on the encrypted input, with the evaluation keys only; an encrypted model's
     * linear maps and LayerNorms on its encrypted parameters (the keys must be those it was encrypted under).
     */
    public EncryptedAnswer evaluate(
            ServerKeys keys, EncryptedQuery query, Calibration calibration, Consumer<Event> listener) {
        long[] bootstraps = {0};
        var result = encrypted.evaluate(
                keys.keySet(),
                model,
                query.embeddings(),
                calibration,
                encryptedModel == null ? null : parameters(keys),
                step -> {
                    bootstraps[0] = step.bootstraps();
                    listener.accept(
                            new BlockDone(step.block(), step.blocks(), step.bootstraps(), step.elapsedSeconds()));
                },
                accounting -> {});
        return new EncryptedAnswer(
                result.output().lastHiddenState(), result.output().logits(), result.seconds(), bootstraps[0]);
    }

    /** The parameters for {@code keys}, read at their first use; another key set's are refused, naming it. */
    private synchronized EncryptedParameters parameters(ServerKeys keys) {
        String id = keys.keySet().evaluationKeys().keySetId();
        if (!id.equals(parametersKeySet)) {
            try {
                parameters = EncryptedModelFolder.read(encryptedModel, keys.keySet());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            parametersKeySet = id;
        }
        return parameters;
    }

    /**
     * The model's owner: its weights encrypted under {@code keys} (which need column blocks, as
     * {@link #generateKeys} makes them) into the encrypted model folder {@code out}, with the domains the server is
     * to run it with; what {@code polyhe encrypt-model} does.
     */
    public void encryptModel(ClientKeys keys, Calibration calibration, Path out) throws IOException {
        requireWeights("encrypting the weights");
        var p = encrypted.encryptParameters(keys.keySet(), model, calibration, (site, done, total) -> {});
        EncryptedModelFolder.write(model.dir(), calibration, keys.keySet(), p, out);
    }

    /** Client: the answer decrypted. */
    public Prediction decrypt(ClientKeys keys, EncryptedAnswer answer) {
        return new Prediction(
                encrypted.decrypt(keys.keySet(), answer.lastHiddenState()),
                answer.logits() == null ? null : encrypted.decrypt(keys.keySet(), answer.logits()));
    }

    /** The plaintext polynomial model on the same input: what a decrypted answer should agree with. */
    public Prediction plaintextPolynomial(ModelInput input, Calibration calibration) {
        requireWeights("the plaintext model");
        InferenceResult r =
                service.compare(model, List.of(input), calibration).polynomial().get(0);
        return new Prediction(r.lastHiddenState(), r.logits());
    }

    /** Client or server: a query or an answer as the CLI's file format, for the other side. */
    public void write(ServerKeys keys, EncryptedQuery query, Path file) throws IOException {
        EncryptedInference.write(
                keys.keySet(), Map.of("model_type", model.modelType()), Map.of("embeddings", query.embeddings()), file);
    }

    /** Server: a query written by {@link #write(ServerKeys, EncryptedQuery, Path)} or {@code polyhe encrypt}. */
    public EncryptedQuery readQuery(ServerKeys keys, Path file) throws IOException {
        EncryptedTensor e =
                EncryptedInference.read(keys.keySet(), file).tensors().get("embeddings");
        if (e == null) {
            throw new IllegalArgumentException(file + " holds no 'embeddings' tensor");
        }
        return new EncryptedQuery(e);
    }

    /** Server: the answer in the file format {@code polyhe decrypt} reads. */
    public void write(ServerKeys keys, EncryptedAnswer answer, Path file) throws IOException {
        Map<String, EncryptedTensor> tensors = new LinkedHashMap<>();
        tensors.put("last_hidden_state", answer.lastHiddenState());
        if (answer.logits() != null) {
            tensors.put("logits", answer.logits());
        }
        EncryptedInference.write(keys.keySet(), Map.of("model_type", model.modelType()), tensors, file);
    }

    /** Client: an answer written by the server. */
    public EncryptedAnswer readAnswer(ClientKeys keys, Path file) throws IOException {
        var t = EncryptedInference.read(keys.keySet(), file).tensors();
        if (t.get("last_hidden_state") == null) {
            throw new IllegalArgumentException(file + " holds no 'last_hidden_state' tensor");
        }
        return new EncryptedAnswer(t.get("last_hidden_state"), t.get("logits"), Double.NaN, -1);
    }
}
