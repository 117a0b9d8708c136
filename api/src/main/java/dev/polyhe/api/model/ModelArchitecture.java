package dev.polyhe.api.model;

import dev.polyhe.api.PolyHePlugin;
import java.nio.file.Path;

/**
 * Service: one transformer family. {@link #name()} is the Hugging Face {@code model_type} it reads
 * ({@code gpt_neox}, {@code roberta}, {@code vit}).
 */
public interface ModelArchitecture extends PolyHePlugin {
    /**
     * Loads a checkpoint folder ({@code config.json} + {@code model.safetensors} or a sharded index).
     *
     * @param checkpointDir the folder
     * @return the model, its weights checked against its config
     *
     * @throws CheckpointException naming the file, key or tensor that is missing or malformed
     */
    Model load(Path checkpointDir);
}
