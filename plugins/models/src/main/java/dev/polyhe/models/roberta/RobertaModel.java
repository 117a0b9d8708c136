package dev.polyhe.models.roberta;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelInfo;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.api.model.ModelOutput;
import dev.polyhe.api.model.Nonlinearities;
import dev.polyhe.models.checkpoint.Weights;
import dev.polyhe.models.layers.ClassificationHead;
import dev.polyhe.models.layers.Embedding;
import dev.polyhe.models.layers.EncoderLayer;
import dev.polyhe.models.layers.FeedForward;
import dev.polyhe.models.layers.LayerNorm;
import dev.polyhe.models.layers.Linear;
import dev.polyhe.models.layers.SelfAttention;
import java.util.ArrayList;
import java.util.List;

/**
 * RoBERTa encoder: word + position (offset past the padding index) + token-type embeddings and their LayerNorm
 * on the client, post-LN encoder blocks on the server, then the sequence-classification head (dense +
 * tanh/sigmoid + out_proj on the first token) when the checkpoint has one, else the pooler when it has one.
 * Without either, the model yields the last hidden state only (logits null).
 */
public final class RobertaModel implements Model {
    private final RobertaConfig config;
    private final Embedding words;
    private final Embedding positions;
    private final double[] tokenType0;
    private final LayerNorm embeddingNorm;
    private final List<EncoderLayer> layers;
    private final ClassificationHead head;

    private RobertaModel(
            RobertaConfig config,
            Embedding words,
            Embedding positions,
            double[] tokenType0,
            LayerNorm embeddingNorm,
            List<EncoderLayer> layers,
            ClassificationHead head) {
        this.config = config;
        this.words = words;
        this.positions = positions;
        this.tokenType0 = tokenType0;
        this.embeddingNorm = embeddingNorm;
        this.layers = layers;
        this.head = head;
    }

    static RobertaModel load(RobertaConfig c, Weights w) {
        String p = w.basePrefix("roberta", "embeddings.word_embeddings.weight");
        int h = c.hiddenSize();
        Embedding words = new Embedding(
                "roberta word_embeddings (input_ids)",
                w.matrix(p + "embeddings.word_embeddings.weight", c.vocabSize(), h));
        Embedding positions = new Embedding(
                "roberta position_embeddings",
                w.matrix(p + "embeddings.position_embeddings.weight", c.maxPositionEmbeddings(), h));
        Matrix types = w.matrix(p + "embeddings.token_type_embeddings.weight", c.typeVocabSize(), h);
        LayerNorm embNorm = LayerNorm.load(w, p + "embeddings.LayerNorm", h, c.layerNormEps());
        List<EncoderLayer> layers = new ArrayList<>();
        for (int i = 0; i < c.numHiddenLayers(); i++) {
            String l = p + "encoder.layer." + i + ".";
            SelfAttention att = SelfAttention.withScaledQuery(
                    Linear.load(w, l + "attention.self.query", h, h, true),
                    Linear.load(w, l + "attention.self.key", h, h, true),
                    Linear.load(w, l + "attention.self.value", h, h, true),
                    Linear.load(w, l + "attention.output.dense", h, h, true),
                    c.numAttentionHeads(),
                    null);
            FeedForward mlp = new FeedForward(
                    Linear.load(w, l + "intermediate.dense", c.intermediateSize(), h, true),
                    Linear.load(w, l + "output.dense", h, c.intermediateSize(), true));
            layers.add(new EncoderLayer(
                    i,
                    att,
                    mlp,
                    LayerNorm.load(w, l + "attention.output.LayerNorm", h, c.layerNormEps()),
                    LayerNorm.load(w, l + "output.LayerNorm", h, c.layerNormEps()),
                    false,
                    new String[] {"attention.output.LayerNorm", "output.LayerNorm"}));
        }
        ClassificationHead head = null;
        if (w.has("classifier.dense.weight")) {
            head = new ClassificationHead(
                    Linear.load(w, "classifier.dense", h, h, true),
                    c.classifierActivation(),
                    Linear.load(w, "classifier.out_proj", c.numLabels(), h, true),
                    "classifier");
        } else if (w.has(p + "pooler.dense.weight")) {
            head = new ClassificationHead(
                    Linear.load(w, p + "pooler.dense", h, h, true), ClassificationHead.Activation.TANH, null, "pooler");
        }
        return new RobertaModel(c, words, positions, types.row(0), embNorm, List.copyOf(layers), head);
    }

    public RobertaConfig config() {
        return config;
    }

    @Override
    public ModelInfo info() {
        return new ModelInfo(
                "roberta",
                config.hiddenSize(),
                config.numHiddenLayers(),
                config.numAttentionHeads(),
                config.intermediateSize(),
                config.maxTokens(),
                config.numLabels());
    }

    /** padding_idx + 1-based count among non-padding tokens; a padding token gets padding_idx. */
    long[] positionIds(long[] ids) {
        long[] pos = new long[ids.length];
        int count = 0;
        for (int t = 0; t < ids.length; t++) {
            if (ids[t] == config.padTokenId()) {
                pos[t] = config.padTokenId();
            } else {
                count++;
                pos[t] = config.padTokenId() + count;
            }
        }
        return pos;
    }

    @Override
    public Matrix embed(ModelInput input) {
        long[] ids = input.inputIds();
        if (ids == null) {
            throw new IllegalArgumentException("roberta takes input_ids, not pixel_values");
        }
        if (ids.length == 0 || ids.length > config.maxTokens()) {
            throw new IllegalArgumentException("roberta: " + ids.length + " input_ids; expected 1 .. "
                    + config.maxTokens() + " (max_position_embeddings " + config.maxPositionEmbeddings()
                    + " minus the padding offset)");
        }
        Matrix types = new Matrix(ids.length, config.hiddenSize(), new double[ids.length * config.hiddenSize()]);
        for (int t = 0; t < ids.length; t++) {
            System.arraycopy(tokenType0, 0, types.data(), t * config.hiddenSize(), config.hiddenSize());
        }
        return embeddingNorm.applyPlain(Embedding.sum(words.lookup(ids), positions.lookup(positionIds(ids)), types));
    }

    @Override
    public <M> ModelOutput<M> forward(TensorOps<M> ops, M embeddings, Nonlinearities nl, LayerObserver observer) {
        M x = embeddings;
        for (EncoderLayer layer : layers) {
            x = layer.apply(ops, x, nl);
            observer.blockDone(ops, layer.index(), x);
        }
        return new ModelOutput<>(x, head == null ? null : head.apply(ops, x, nl));
    }
}
