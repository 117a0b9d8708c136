package dev.polyhe.models.roberta;

import dev.polyhe.models.checkpoint.CheckpointArchitecture;

/** Service provider for {@code model_type: roberta}. */
public final class RobertaArchitecture extends CheckpointArchitecture<RobertaConfig> {
    public static final String NAME = "roberta";

    public RobertaArchitecture() {
        super(
                NAME,
                "RoBERTa encoder: post-LN blocks, sequence-classification head (tanh or sigmoid), pooler",
                true,
                RobertaConfig::from,
                RobertaModel::load);
    }
}
