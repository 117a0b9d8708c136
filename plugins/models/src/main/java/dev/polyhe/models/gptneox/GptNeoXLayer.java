package dev.polyhe.models.gptneox;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Nonlinearities;
import dev.polyhe.models.checkpoint.Weights;
import dev.polyhe.models.layers.FeedForward;
import dev.polyhe.models.layers.LayerNorm;
import dev.polyhe.models.layers.Linear;
import dev.polyhe.models.layers.RotaryEmbedding;
import dev.polyhe.models.layers.SelfAttention;

/**
 * One GPT-NeoX block. Parallel residual (Pythia): x + Attn(LN_in(x)) + MLP(LN_post(x)); sequential otherwise:
 * x1 = x + Attn(LN_in(x)), x1 + MLP(LN_post(x1)).
 */
record GptNeoXLayer(
        int index,
        LayerNorm inputLayerNorm,
        LayerNorm postAttentionLayerNorm,
        SelfAttention attention,
        FeedForward mlp,
        boolean parallelResidual) {

    static GptNeoXLayer load(Weights w, String prefix, int index, GptNeoXConfig c, RotaryEmbedding rotary) {
        String p = prefix + "layers." + index + ".";
        int h = c.hiddenSize();
        Linear[] qkv = splitQueryKeyValue(w, p + "attention.query_key_value", c);
        SelfAttention attention = SelfAttention.withScaledQuery(
                qkv[0],
                qkv[1],
                qkv[2],
                Linear.load(w, p + "attention.dense", h, h, c.attentionBias()),
                c.numAttentionHeads(),
                rotary);
        FeedForward mlp = new FeedForward(
                Linear.load(w, p + "mlp.dense_h_to_4h", c.intermediateSize(), h, true),
                Linear.load(w, p + "mlp.dense_4h_to_h", h, c.intermediateSize(), true));
        return new GptNeoXLayer(
                index,
                LayerNorm.load(w, p + "input_layernorm", h, c.layerNormEps()),
                LayerNorm.load(w, p + "post_attention_layernorm", h, c.layerNormEps()),
                attention,
                mlp,
                c.useParallelResidual());
    }

    /**
     * query_key_value [3H, H] interleaves heads as [q_h | k_h | v_h] for h = 0..heads-1; gathering the rows
     * into three [H, H] projections lets the model run three plain linear layers instead of slicing every head
     * out of one wide product.
     */
    static Linear[] splitQueryKeyValue(Weights w, String name, GptNeoXConfig c) {
        int h = c.hiddenSize();
        int d = c.headSize();
        Linear fused = Linear.load(w, name, 3 * h, h, c.attentionBias());
        double[] src = fused.weight().data();
        Linear[] out = new Linear[3];
        for (int part = 0; part < 3; part++) {
            double[] wt = new double[h * h];
            double[] b = fused.bias() == null ? null : new double[h];
            for (int head = 0; head < c.numAttentionHeads(); head++) {
                for (int i = 0; i < d; i++) {
                    int from = 3 * d * head + part * d + i;
                    int to = head * d + i;
                    System.arraycopy(src, from * h, wt, to * h, h);
                    if (b != null) {
                        b[to] = fused.bias()[from];
                    }
                }
            }
            out[part] = new Linear(new Matrix(h, h, wt), b);
        }
        return out;
    }

    <M> M apply(TensorOps<M> ops, M x, Matrix causalMask, Nonlinearities nl) {
        String site = "layers." + index;
        M attn = attention.apply(
                ops, inputLayerNorm.apply(ops, x, nl, site + ".input_layernorm"), causalMask, nl, site + ".attention");
        if (parallelResidual) {
            M ff = mlp.apply(
                    ops,
                    postAttentionLayerNorm.apply(ops, x, nl, site + ".post_attention_layernorm"),
                    nl,
                    site + ".mlp");
            return ops.add(ops.add(x, attn), ff);
        }
        M x1 = ops.add(x, attn);
        return ops.add(
                x1,
                mlp.apply(
                        ops,
                        postAttentionLayerNorm.apply(ops, x1, nl, site + ".post_attention_layernorm"),
                        nl,
                        site + ".mlp"));
    }
}
