package dev.polyhe.models.roberta;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelArchitecture;
import dev.polyhe.models.checkpoint.HfConfig;
import dev.polyhe.models.checkpoint.Weights;
import dev.polyhe.models.safetensors.Checkpoints;
import dev.polyhe.models.safetensors.TensorSource;
import dev.polyhe.models.tokenizer.TokenizedModel;
import java.nio.file.Path;

/** Service provider for {@code model_type: roberta}. */
public final class RobertaArchitecture implements ModelArchitecture {
    public static final String NAME = "roberta";

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
        return "RoBERTa encoder: post-LN blocks, sequence-classification head (tanh or sigmoid), pooler";
    }

    @Override
    public Model load(Path checkpointDir) {
        RobertaConfig config = RobertaConfig.from(HfConfig.read(checkpointDir, NAME));
        try (TensorSource source = Checkpoints.openWeights(checkpointDir)) {
            return TokenizedModel.withTokenizerOf(checkpointDir, RobertaModel.load(config, new Weights(source)));
        }
    }
}
