package dev.polyhe.models.layers;

import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Nonlinearities;

/**
 * A BERT-style encoder block, in either LayerNorm placement:
 * post-LN (BERT, RoBERTa): x1 = LN1(x + Attn(x)), LN2(x1 + MLP(x1));
 * pre-LN (ViT): x1 = x + Attn(LN1(x)), x1 + MLP(LN2(x1)).
 *
 * @param sites names of the LayerNorm sites in the Hugging Face module's words ([first, second])
 */
public record EncoderLayer(
        int index,
        SelfAttention attention,
        FeedForward mlp,
        LayerNorm first,
        LayerNorm second,
        boolean preNorm,
        String[] sites) {

    public <M> M apply(TensorOps<M> ops, M x, Nonlinearities nl) {
        String site = "layers." + index;
        if (preNorm) {
            M x1 = ops.add(
                    x,
                    attention.apply(
                            ops, first.apply(ops, x, nl, site + "." + sites[0]), null, nl, site + ".attention"));
            return ops.add(
                    x1, mlp.apply(ops, second.apply(ops, x1, nl, site + "." + sites[1]), nl, site + ".intermediate"));
        }
        M x1 = first.apply(
                ops, ops.add(x, attention.apply(ops, x, null, nl, site + ".attention")), nl, site + "." + sites[0]);
        return second.apply(
                ops, ops.add(x1, mlp.apply(ops, x1, nl, site + ".intermediate")), nl, site + "." + sites[1]);
    }
}
