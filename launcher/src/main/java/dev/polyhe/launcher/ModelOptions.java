package dev.polyhe.launcher;

import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.InvalidInputException;
import dev.polyhe.core.inference.ModelInputs;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What {@code infer}, {@code calibrate} and {@code encrypt} share: the checkpoint, the inputs, config and attention.
 */
final class ModelOptions {
    @Option(
            names = "--model",
            required = true,
            paramLabel = "DIR",
            description = "Hugging Face checkpoint folder (config.json + model.safetensors or a sharded index).")
    Path model;

    @Option(
            names = "--input",
            required = true,
            paramLabel = "FILE.json",
            description = "{\"input_ids\": [[...], ...]}, {\"text\": [\"...\", ...]} (with the checkpoint's "
                    + "tokenizer.json) or {\"pixel_values\": [[[[...]]]]} ([batch, channels, height, width]).")
    Path input;

    @Mixin
    PipelineOptions pipeline;

    PolyHe open(CommonOptions common) {
        return pipeline.open(common);
    }

    /** @see PipelineOptions#service(PolyHe, Path) */
    InferenceService service(PolyHe polyhe) {
        return pipeline.service(polyhe, model);
    }

    /** The input file's batch; {@code text} entries are tokenized by the model's own tokenizer. */
    List<ModelInput> inputs(Model loaded) {
        try {
            return ModelInputs.read(input, loaded);
        } catch (InvalidInputException e) {
            throw new ErrorReport.InputException(e.getMessage());
        }
    }
}
