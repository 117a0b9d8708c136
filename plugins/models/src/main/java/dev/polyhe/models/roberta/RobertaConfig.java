package dev.polyhe.models.roberta;

import dev.polyhe.models.checkpoint.HfConfig;
import dev.polyhe.models.layers.ClassificationHead.Activation;
import java.util.List;
import java.util.Locale;

/**
 * The RoBERTa fields of config.json. {@code classifier_activation} ("tanh", default, or "sigmoid") is a
 * PolyHE key: the paper fine-tunes the classification head with a sigmoid in place of tanh.
 */
public record RobertaConfig(
        int vocabSize,
        int hiddenSize,
        int numHiddenLayers,
        int numAttentionHeads,
        int intermediateSize,
        int maxPositionEmbeddings,
        int typeVocabSize,
        int padTokenId,
        double layerNormEps,
        int numLabels,
        Activation classifierActivation) {

    public static RobertaConfig from(HfConfig c) {
        c.optChoice("hidden_act", "gelu", List.of("gelu"));
        c.optChoice("position_embedding_type", "absolute", List.of("absolute"));
        int labels = c.objectSize("id2label");
        RobertaConfig r = new RobertaConfig(
                c.requirePositiveInt("vocab_size"),
                c.requirePositiveInt("hidden_size"),
                c.requirePositiveInt("num_hidden_layers"),
                c.requirePositiveInt("num_attention_heads"),
                c.requirePositiveInt("intermediate_size"),
                c.requirePositiveInt("max_position_embeddings"),
                c.optInt("type_vocab_size", 1),
                c.optInt("pad_token_id", 1),
                c.optDouble("layer_norm_eps", 1e-5),
                labels > 0 ? labels : c.optInt("num_labels", 2),
                Activation.valueOf(c.optChoice("classifier_activation", "tanh", List.of("tanh", "sigmoid"))
                        .toUpperCase(Locale.ROOT)));
        if (r.hiddenSize % r.numAttentionHeads != 0) {
            throw c.invalid(
                    "hidden_size " + r.hiddenSize + " is not divisible by num_attention_heads " + r.numAttentionHeads);
        }
        if (r.padTokenId < 0 || r.padTokenId + 1 >= r.maxPositionEmbeddings) {
            throw c.invalid("pad_token_id " + r.padTokenId + " leaves no positions below max_position_embeddings "
                    + r.maxPositionEmbeddings);
        }
        return r;
    }

    /** Positions start after the padding index, so this many tokens fit. */
    public int maxTokens() {
        return maxPositionEmbeddings - padTokenId - 1;
    }
}
