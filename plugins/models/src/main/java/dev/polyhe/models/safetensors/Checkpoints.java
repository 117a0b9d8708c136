package dev.polyhe.models.safetensors;

import dev.polyhe.api.model.CheckpointException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the weights of a Hugging Face checkpoint folder: one {@code model.safetensors} or a sharded index. */
public final class Checkpoints {
    public static final String SINGLE = "model.safetensors";
    public static final String INDEX = "model.safetensors.index.json";

    private Checkpoints() {}

    public static TensorSource openWeights(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new CheckpointException("checkpoint folder " + dir + " does not exist or is not a folder");
        }
        Path single = dir.resolve(SINGLE);
        if (Files.isRegularFile(single)) {
            return SafetensorsFile.open(single);
        }
        Path index = dir.resolve(INDEX);
        if (Files.isRegularFile(index)) {
            return ShardedSafetensors.open(index);
        }
        throw new CheckpointException(
                dir + " has neither " + SINGLE + " nor " + INDEX + " (PolyHE reads safetensors checkpoints only)");
    }
}
