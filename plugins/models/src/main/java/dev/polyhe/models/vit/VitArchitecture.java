package dev.polyhe.models.vit;

import dev.polyhe.models.checkpoint.CheckpointArchitecture;

/** Service provider for {@code model_type: vit}. */
public final class VitArchitecture extends CheckpointArchitecture<VitConfig> {
    public static final String NAME = "vit";

    public VitArchitecture() {
        super(
                NAME,
                "Vision Transformer: client-side patch embedding, pre-LN encoder, classifier on CLS",
                false,
                VitConfig::from,
                VitModel::load);
    }
}
