package dev.polyhe.models.vit;

import dev.polyhe.models.checkpoint.HfConfig;
import java.util.List;

/** The ViT fields of config.json. */
public record VitConfig(
        int imageSize,
        int patchSize,
        int numChannels,
        int hiddenSize,
        int numHiddenLayers,
        int numAttentionHeads,
        int intermediateSize,
        double layerNormEps,
        int numLabels,
        boolean qkvBias) {

    public static VitConfig from(HfConfig c) {
        c.optChoice("hidden_act", "gelu", List.of("gelu"));
        int labels = c.objectSize("id2label");
        VitConfig v = new VitConfig(
                c.requirePositiveInt("image_size"),
                c.requirePositiveInt("patch_size"),
                c.optInt("num_channels", 3),
                c.requirePositiveInt("hidden_size"),
                c.requirePositiveInt("num_hidden_layers"),
                c.requirePositiveInt("num_attention_heads"),
                c.requirePositiveInt("intermediate_size"),
                c.optDouble("layer_norm_eps", 1e-12),
                labels > 0 ? labels : c.optInt("num_labels", 2),
                c.optBoolean("qkv_bias", true));
        if (v.imageSize % v.patchSize != 0) {
            throw c.invalid("image_size " + v.imageSize + " is not a multiple of patch_size " + v.patchSize);
        }
        if (v.hiddenSize % v.numAttentionHeads != 0) {
            throw c.invalid(
                    "hidden_size " + v.hiddenSize + " is not divisible by num_attention_heads " + v.numAttentionHeads);
        }
        return v;
    }

    public int patchesPerSide() {
        return imageSize / patchSize;
    }

    /** T = 1 (CLS) + number of patches. */
    public int tokens() {
        return 1 + patchesPerSide() * patchesPerSide();
    }

    /** C·P·P, the length of one unfolded patch. */
    public int patchLength() {
        return numChannels * patchSize * patchSize;
    }
}
