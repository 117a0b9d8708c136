package dev.polyhe.launcher;

import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.InvalidInputException;
import dev.polyhe.core.inference.ModelInputs;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** What {@code infer} and {@code calibrate} share: the checkpoint, the inputs, the config and the attention. */
final class ModelOptions {
    @Option(names = "--model", required = true, paramLabel = "DIR",
            description = "Hugging Face checkpoint folder (config.json + model.safetensors or a sharded index).")
    Path model;

    @Option(names = "--input", required = true, paramLabel = "FILE.json",
            description = "{\"input_ids\": [[...], ...]} or {\"pixel_values\": [[[[...]]]]} ([batch, channels, height, width]).")
    Path input;

    @Option(names = "--config", paramLabel = "CFG", description = "Config file (YAML or JSON); the flags below override it.")
    Path config;

    @Option(names = "--attention", paramLabel = "NAME",
            description = "Attention mechanism (e.g. softmax, power-softmax); default: the config's.")
    String attention;

    @Option(names = "--attention-opt", paramLabel = "KEY=VALUE",
            description = "Option of the attention mechanism (repeatable), e.g. --attention-opt p=4 --attention-opt epsilon=0.001.")
    Map<String, String> attentionOptions = new LinkedHashMap<>();

    PolyHe open(CommonOptions common) {
        PolyHe.Builder b = PolyHe.builder().pluginsDir(common.pluginsDir);
        if (config != null) {
            b.configFile(config);
        }
        return b.build();
    }

    /** The config's inference service with the command-line attention applied. */
    InferenceService service(PolyHe polyhe) {
        InferenceService service = polyhe.inference();
        if (attention == null && attentionOptions.isEmpty()) {
            return service;
        }
        PluginChoice base = service.attention();
        Map<String, Object> options = new LinkedHashMap<>();
        if (attention == null || attention.equals(base.name())) {
            options.putAll(base.options());
        }
        options.putAll(attentionOptions);
        return service.withAttention(new PluginChoice(attention != null ? attention : base.name(), options));
    }

    List<ModelInput> inputs() {
        try {
            return ModelInputs.read(input);
        } catch (InvalidInputException e) {
            throw new ErrorReport.InputException(e.getMessage());
        }
    }
}
