package dev.polyhe.models.vit;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelArchitecture;
import dev.polyhe.models.checkpoint.HfConfig;
import dev.polyhe.models.checkpoint.Weights;
import dev.polyhe.models.safetensors.Checkpoints;
import dev.polyhe.models.safetensors.TensorSource;
import java.nio.file.Path;

/** Service provider for {@code model_type: vit}. */
public final class VitArchitecture implements ModelArchitecture {
    public static final String NAME = "vit";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String apiVersion() {
        return PolyHeApi.VERSION;
    }

    @Override
    public String description() {
        return "Vision Transformer: client-side patch embedding, pre-LN encoder, classifier on CLS";
    }

    @Override
    public Model load(Path checkpointDir) {
        VitConfig config = VitConfig.from(HfConfig.read(checkpointDir, NAME));
        try (TensorSource source = Checkpoints.openWeights(checkpointDir)) {
            return VitModel.load(config, new Weights(source));
        }
    }
}
