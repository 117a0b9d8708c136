package dev.polyhe.models.gptneox;

import dev.polyhe.models.checkpoint.CheckpointArchitecture;

/** Service provider for {@code model_type: gpt_neox} (Pythia). */
public final class GptNeoXArchitecture extends CheckpointArchitecture<GptNeoXConfig> {
    public static final String NAME = "gpt_neox";

    public GptNeoXArchitecture() {
        super(
                NAME,
                "GPT-NeoX / Pythia causal LM: partial rotary attention, parallel residual, causal mask",
                true,
                GptNeoXConfig::from,
                GptNeoXModel::load);
    }
}
