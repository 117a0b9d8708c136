package dev.polyhe.models.vit;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelInfo;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.api.model.ModelOutput;
import dev.polyhe.api.model.Nonlinearities;
import dev.polyhe.models.checkpoint.Weights;
import dev.polyhe.models.layers.ClassificationHead;
import dev.polyhe.models.layers.EncoderLayer;
import dev.polyhe.models.layers.FeedForward;
import dev.polyhe.models.layers.LayerNorm;
import dev.polyhe.models.layers.Linear;
import dev.polyhe.models.layers.SelfAttention;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Vision Transformer: patch embedding, CLS token and learned positions on the client; pre-LN encoder blocks and
 * the final LayerNorm on the server; the classifier on the CLS position (or the pooler of a bare ViTModel).
 */
public final class VitModel implements Model {
    private final VitConfig config;
    private final PatchEmbedding patches;
    private final double[] clsToken;
    private final Matrix positions;
    private final List<EncoderLayer> layers;
    private final LayerNorm finalNorm;
    private final ClassificationHead head;

    private VitModel(
            VitConfig config,
            PatchEmbedding patches,
            double[] clsToken,
            Matrix positions,
            List<EncoderLayer> layers,
            LayerNorm finalNorm,
            ClassificationHead head) {
        this.config = config;
        this.patches = patches;
        this.clsToken = clsToken;
        this.positions = positions;
        this.layers = layers;
        this.finalNorm = finalNorm;
        this.head = head;
    }

    static VitModel load(VitConfig c, Weights w) {
        String p = w.basePrefix("vit", "embeddings.cls_token");
        int h = c.hiddenSize();
        double[] kernel = w.tensor(
                p + "embeddings.patch_embeddings.projection.weight", h, c.numChannels(), c.patchSize(), c.patchSize());
        Linear projection = new Linear(
                new Matrix(h, c.patchLength(), kernel), w.vector(p + "embeddings.patch_embeddings.projection.bias", h));
        double[] cls = w.tensor(p + "embeddings.cls_token", 1, 1, h);
        Matrix pos = new Matrix(c.tokens(), h, w.tensor(p + "embeddings.position_embeddings", 1, c.tokens(), h));
        List<EncoderLayer> layers = new ArrayList<>();
        for (int i = 0; i < c.numHiddenLayers(); i++) {
            String l = p + "encoder.layer." + i + ".";
            SelfAttention att = SelfAttention.withScaledQuery(
                    Linear.load(w, l + "attention.attention.query", h, h, c.qkvBias()),
                    Linear.load(w, l + "attention.attention.key", h, h, c.qkvBias()),
                    Linear.load(w, l + "attention.attention.value", h, h, c.qkvBias()),
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
                    LayerNorm.load(w, l + "layernorm_before", h, c.layerNormEps()),
                    LayerNorm.load(w, l + "layernorm_after", h, c.layerNormEps()),
                    true,
                    new String[] {"layernorm_before", "layernorm_after"}));
        }
        LayerNorm fin = LayerNorm.load(w, p + "layernorm", h, c.layerNormEps());
        ClassificationHead head = null;
        if (w.has("classifier.weight")) {
            head = new ClassificationHead(
                    null, null, Linear.load(w, "classifier", c.numLabels(), h, true), "classifier");
        } else if (w.has(p + "pooler.dense.weight")) {
            head = new ClassificationHead(
                    Linear.load(w, p + "pooler.dense", h, h, true), ClassificationHead.Activation.TANH, null, "pooler");
        }
        return new VitModel(c, new PatchEmbedding(c, projection), cls, pos, List.copyOf(layers), fin, head);
    }

    public VitConfig config() {
        return config;
    }

    @Override
    public ModelInfo info() {
        return new ModelInfo(
                "vit",
                config.hiddenSize(),
                config.numHiddenLayers(),
                config.numAttentionHeads(),
                config.intermediateSize(),
                config.tokens(),
                config.numLabels());
    }

    @Override
    public Matrix embed(ModelInput input) {
        if (input.pixelValues() == null) {
            throw new IllegalArgumentException("vit takes pixel_values, not input_ids");
        }
        int[] expected = {config.numChannels(), config.imageSize(), config.imageSize()};
        if (!Arrays.equals(input.pixelShape(), expected)) {
            throw new IllegalArgumentException("vit: pixel_values have shape " + Arrays.toString(input.pixelShape())
                    + ", expected [channels, height, width] = " + Arrays.toString(expected));
        }
        Matrix patchRows = patches.apply(input.pixelValues());
        int h = config.hiddenSize();
        double[] out = new double[config.tokens() * h];
        System.arraycopy(clsToken, 0, out, 0, h);
        System.arraycopy(patchRows.data(), 0, out, h, patchRows.data().length);
        for (int i = 0; i < out.length; i++) {
            out[i] += positions.data()[i];
        }
        return new Matrix(config.tokens(), h, out);
    }

    @Override
    public <M> ModelOutput<M> forward(TensorOps<M> ops, M embeddings, Nonlinearities nl, LayerObserver observer) {
        M x = embeddings;
        for (EncoderLayer layer : layers) {
            x = layer.apply(ops, x, nl);
            observer.blockDone(ops, layer.index(), x);
        }
        M last = finalNorm.apply(ops, x, nl, "layernorm");
        return new ModelOutput<>(last, head == null ? null : head.apply(ops, last, nl));
    }
}
