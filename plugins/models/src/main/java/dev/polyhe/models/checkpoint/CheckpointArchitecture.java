package dev.polyhe.models.checkpoint;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelArchitecture;
import dev.polyhe.models.safetensors.Checkpoints;
import dev.polyhe.models.safetensors.TensorSource;
import dev.polyhe.models.tokenizer.TokenizedModel;
import java.nio.file.Path;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A Hugging Face architecture read the same way for every family: {@code config.json} into the family's typed
 * config, the weights from safetensors (sharded or not), and, for text models, the folder's
 * {@code tokenizer.json} when it has one.
 */
public abstract class CheckpointArchitecture<C> implements ModelArchitecture {
    private final String name;
    private final String description;
    private final boolean text;
    private final Function<HfConfig, C> config;
    private final BiFunction<C, Weights, Model> build;

    protected CheckpointArchitecture(
            String name,
            String description,
            boolean text,
            Function<HfConfig, C> config,
            BiFunction<C, Weights, Model> build) {
        this.name = name;
        this.description = description;
        this.text = text;
        this.config = config;
        this.build = build;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String apiVersion() {
        return PolyHeApi.VERSION;
    }

    @Override
    public final String description() {
        return description;
    }

    @Override
    public final Model load(Path checkpointDir) {
        C c = config.apply(HfConfig.read(checkpointDir, name));
        Model model;
        try (TensorSource source = Checkpoints.openWeights(checkpointDir)) {
            model = build.apply(c, new Weights(source));
        }
        return text ? TokenizedModel.withTokenizerOf(checkpointDir, model) : model;
    }
}
