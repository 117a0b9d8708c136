package dev.polyhe.launcher;

import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.bench.RandomCheckpoint;
import dev.polyhe.core.bench.RandomCheckpoint.Architecture;
import dev.polyhe.core.bench.RandomCheckpoint.Init;
import dev.polyhe.core.bench.RandomCheckpoint.Shape;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.encrypted.KeySet;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.InferenceResult;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.LoadedModel;
import dev.polyhe.core.inference.ModelInputs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What the encrypted end-to-end tests start from: a checkpoint generated here with a random input, PowerSoftmax
 * (p = 4, ε = 1e-3), calibrated on that input, and the plaintext polynomial model's answer to compare with; keys on
 * the small bootstrapping ring of the 128-bit design.
 */
record GeneratedQuery(
        PolyHe polyhe,
        InferenceService service,
        LoadedModel loaded,
        List<ModelInput> inputs,
        Calibration calibration,
        InferenceResult polynomial,
        int keyTokens) {
    static final String PRESET = "insecure-test-boot-dense-N10";

    static GeneratedQuery write(
            PolyHe polyhe, Path dir, Architecture arch, Shape shape, Init init, int tokens, long seed)
            throws Exception {
        return write(polyhe, dir, arch, shape, init, RandomCheckpoint.Residual.PARALLEL, tokens, tokens, seed);
    }

    /** A query of {@code tokens} tokens under keys that serve {@code keyTokens} (the rest of their rows padding). */
    static GeneratedQuery write(
            PolyHe polyhe,
            Path dir,
            Architecture arch,
            Shape shape,
            Init init,
            RandomCheckpoint.Residual residual,
            int tokens,
            int keyTokens,
            long seed)
            throws Exception {
        Path model = RandomCheckpoint.write(dir, arch, shape, init, seed, residual);
        Path inputFile =
                Files.writeString(model.resolve("input.json"), RandomCheckpoint.randomInput(arch, shape, tokens, seed));
        InferenceService service =
                polyhe.inference().withAttention(new PluginChoice("power-softmax", Map.of("p", 4, "epsilon", 0.001)));
        LoadedModel loaded = service.load(model);
        List<ModelInput> inputs = ModelInputs.read(inputFile, loaded.model());
        Calibration cal = service.calibrate(loaded, inputs);
        InferenceResult poly = service.compare(loaded, inputs, cal).polynomial().get(0);
        return new GeneratedQuery(
                polyhe,
                service,
                loaded,
                inputs,
                cal,
                poly,
                Math.max(keyTokens, poly.embeddings().rows()));
    }

    /** Keys (with bootstrapping) on {@link #PRESET} for {@link #keyTokens} tokens, at least the first input's. */
    KeySet keys(EncryptedInference encrypted) {
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        return encrypted.generateKeys(backend, backend.preset(PRESET), keyTokens, maxColumns(), true);
    }

    /** The planning key set ({@link EncryptedInference#planningKeys}) that matches {@link #keys}. */
    KeySet planningKeys(EncryptedInference encrypted) {
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        return encrypted.planningKeys(backend, backend.preset(PRESET), keyTokens, maxColumns(), true);
    }

    private int maxColumns() {
        var info = loaded.model().info();
        return Math.max(info.hiddenSize(), info.intermediateSize());
    }

    /** The model on the first input, encrypted under {@code keys}, evaluated as a server does. */
    EncryptedInference.ServerResult evaluate(EncryptedInference encrypted, KeySet keys) {
        return encrypted.evaluate(
                keys, loaded, encrypted.encrypt(keys, loaded.model(), inputs.get(0)), calibration, step -> {});
    }
}
