package dev.polyhe.models.gptneox;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelArchitecture;
import dev.polyhe.models.checkpoint.HfConfig;
import dev.polyhe.models.checkpoint.Weights;
import dev.polyhe.models.safetensors.Checkpoints;
import dev.polyhe.models.safetensors.TensorSource;
import dev.polyhe.models.tokenizer.TokenizedModel;
import java.nio.file.Path;

/** Service provider for {@code model_type: gpt_neox} (Pythia). */
public final class GptNeoXArchitecture implements ModelArchitecture {
    public static final String NAME = "gpt_neox";

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
        return "GPT-NeoX / Pythia causal LM: partial rotary attention, parallel residual, causal mask";
    }

    @Override
    public Model load(Path checkpointDir) {
        GptNeoXConfig config = GptNeoXConfig.from(HfConfig.read(checkpointDir, NAME));
        try (TensorSource source = Checkpoints.openWeights(checkpointDir)) {
            return TokenizedModel.withTokenizerOf(checkpointDir, GptNeoXModel.load(config, new Weights(source)));
        }
    }
}
