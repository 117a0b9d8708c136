package dev.polyhe.models.layers;

import dev.polyhe.api.arith.OperatorScope;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Nonlinearities;

/**
 * Classification on the first token (CLS / {@code <s>}): optional dense + activation (RoBERTa's head, BERT-style
 * poolers), then an optional output projection. With {@code sigmoid} the activation is σ(x) = (1 + tanh(x/2))/2,
 * the variant the paper fine-tunes RoBERTa with; it reuses the host's tanh, so exact, polynomial and encrypted
 * runs need no extra function.
 *
 * @param dense the projection before the activation, or null for a bare linear classifier (ViT)
 * @param outProj the projection after the activation, or null for a pooler
 */
public record ClassificationHead(Linear dense, Activation activation, Linear outProj, String site) {
    public enum Activation {
        TANH,
        SIGMOID
    }

    @SuppressWarnings("try") // the scope only brackets the work for the engine's accounting
    public <M> M apply(TensorOps<M> ops, M hidden, Nonlinearities nl) {
        try (OperatorScope s = ops.operator(site)) {
            M x = ops.rowRange(hidden, 0, 1);
            if (dense != null) {
                x = dense.apply(ops, x);
                x = activation == Activation.SIGMOID
                        ? ops.addConstant(ops.mulConstant(nl.tanh(ops, ops.mulConstant(x, 0.5), site), 0.5), 0.5)
                        : nl.tanh(ops, x, site);
            }
            return outProj == null ? x : outProj.apply(ops, x);
        }
    }
}
