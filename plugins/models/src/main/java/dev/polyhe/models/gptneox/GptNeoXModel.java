package dev.polyhe.models.gptneox;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelInfo;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.api.model.ModelOutput;
import dev.polyhe.api.model.Nonlinearities;
import dev.polyhe.models.checkpoint.Weights;
import dev.polyhe.models.layers.CausalMask;
import dev.polyhe.models.layers.Embedding;
import dev.polyhe.models.layers.LayerNorm;
import dev.polyhe.models.layers.Linear;
import dev.polyhe.models.layers.RotaryEmbedding;
import java.util.ArrayList;
import java.util.List;

/**
 * GPT-NeoX / Pythia causal language model: token embedding (client), blocks with partial rotary attention
 * under a causal mask and parallel residual, final LayerNorm, and the output head (untied {@code embed_out}
 * or tied to the input embedding) giving logits for every position.
 */
public final class GptNeoXModel implements Model {
    private final GptNeoXConfig config;
    private final Embedding embedIn;
    private final List<GptNeoXLayer> layers;
    private final LayerNorm finalLayerNorm;
    private final Linear head;

    private GptNeoXModel(
            GptNeoXConfig config, Embedding embedIn, List<GptNeoXLayer> layers, LayerNorm finalLayerNorm, Linear head) {
        this.config = config;
        this.embedIn = embedIn;
        this.layers = layers;
        this.finalLayerNorm = finalLayerNorm;
        this.head = head;
    }

    static GptNeoXModel load(GptNeoXConfig c, Weights w) {
        // GPTNeoXForCausalLM stores the base model under "gpt_neox."; a bare GPTNeoXModel has no prefix.
        String p = w.basePrefix("gpt_neox", "embed_in.weight");
        int h = c.hiddenSize();
        Matrix embed = w.matrix(p + "embed_in.weight", c.vocabSize(), h);
        RotaryEmbedding rotary =
                new RotaryEmbedding(c.numAttentionHeads(), c.headSize(), c.rotaryDims(), c.rotaryEmbBase());
        List<GptNeoXLayer> layers = new ArrayList<>();
        for (int i = 0; i < c.numHiddenLayers(); i++) {
            layers.add(GptNeoXLayer.load(w, p, i, c, rotary));
        }
        LayerNorm fin = LayerNorm.load(w, p + "final_layer_norm", h, c.layerNormEps());
        Linear head;
        if (c.tieWordEmbeddings()) {
            head = new Linear(embed, null);
        } else {
            head = new Linear(w.matrix("embed_out.weight", c.vocabSize(), h), null);
        }
        return new GptNeoXModel(
                c, new Embedding("gpt_neox.embed_in (input_ids)", embed), List.copyOf(layers), fin, head);
    }

    public GptNeoXConfig config() {
        return config;
    }

    @Override
    public ModelInfo info() {
        return new ModelInfo(
                "gpt_neox",
                config.hiddenSize(),
                config.numHiddenLayers(),
                config.numAttentionHeads(),
                config.intermediateSize(),
                config.maxPositionEmbeddings(),
                config.vocabSize());
    }

    @Override
    public Matrix embed(ModelInput input) {
        if (input.inputIds() == null) {
            throw new IllegalArgumentException("gpt_neox takes input_ids, not pixel_values");
        }
        if (input.inputIds().length == 0) {
            throw new IllegalArgumentException("gpt_neox: input_ids is empty");
        }
        return embedIn.lookup(input.inputIds());
    }

    @Override
    @SuppressWarnings("try") // the scope only brackets the work for the engine's accounting
    public <M> ModelOutput<M> forward(TensorOps<M> ops, M embeddings, Nonlinearities nl, LayerObserver observer) {
        Matrix mask = CausalMask.of(ops.rows(embeddings));
        M x = embeddings;
        for (GptNeoXLayer layer : layers) {
            x = layer.apply(ops, x, mask, nl);
            observer.blockDone(ops, layer.index(), x);
        }
        M last = finalLayerNorm.apply(ops, x, nl, "final_layer_norm");
        M logits;
        try (var s = ops.operator("embed_out")) {
            logits = head.apply(ops, last);
        }
        return new ModelOutput<>(last, logits);
    }
}
