package dev.polyhe.models.gptneox;

import dev.polyhe.models.checkpoint.HfConfig;
import java.util.List;

/**
 * The GPT-NeoX (Pythia) fields of config.json. Newer transformers releases spell the rotary settings
 * {@code partial_rotary_factor} and {@code rope_theta}; both spellings are read.
 */
public record GptNeoXConfig(
        int vocabSize,
        int hiddenSize,
        int numHiddenLayers,
        int numAttentionHeads,
        int intermediateSize,
        double rotaryPct,
        double rotaryEmbBase,
        int maxPositionEmbeddings,
        double layerNormEps,
        boolean useParallelResidual,
        boolean tieWordEmbeddings,
        boolean attentionBias) {

    public static GptNeoXConfig from(HfConfig c) {
        c.optChoice("hidden_act", "gelu", List.of("gelu"));
        GptNeoXConfig g = new GptNeoXConfig(
                c.requirePositiveInt("vocab_size"),
                c.requirePositiveInt("hidden_size"),
                c.requirePositiveInt("num_hidden_layers"),
                c.requirePositiveInt("num_attention_heads"),
                c.requirePositiveInt("intermediate_size"),
                c.optDouble("rotary_pct", c.optDouble("partial_rotary_factor", 0.25)),
                c.optDouble("rotary_emb_base", c.optDouble("rope_theta", 10000)),
                c.optInt("max_position_embeddings", 2048),
                c.optDouble("layer_norm_eps", 1e-5),
                c.optBoolean("use_parallel_residual", true),
                c.optBoolean("tie_word_embeddings", false),
                c.optBoolean("attention_bias", true));
        if (g.hiddenSize % g.numAttentionHeads != 0) {
            throw c.invalid(
                    "hidden_size " + g.hiddenSize + " is not divisible by num_attention_heads " + g.numAttentionHeads);
        }
        if (!(g.rotaryPct >= 0 && g.rotaryPct <= 1)) {
            throw c.invalid("rotary_pct " + g.rotaryPct + " must lie in [0, 1]");
        }
        if (g.rotaryDims() % 2 != 0) {
            throw c.invalid("rotary_pct " + g.rotaryPct + " gives " + g.rotaryDims()
                    + " rotary dimensions per head; the rotate-half convention needs an even number");
        }
        if (c.has("rope_scaling")) {
            throw c.invalid("rope_scaling is not supported (only plain rotary embeddings)");
        }
        return g;
    }

    public int headSize() {
        return hiddenSize / numAttentionHeads;
    }

    /** r = floor(d · rotary_pct), as the reference computes it. */
    public int rotaryDims() {
        return (int) Math.floor(headSize() * rotaryPct);
    }
}
