package dev.polyhe.models.layers;

import dev.polyhe.api.arith.OperatorScope;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Nonlinearities;

/** The transformer MLP: down(GELU(up(x))). GELU goes through {@link Nonlinearities} (exact or polynomial). */
public record FeedForward(Linear up, Linear down) {
    @SuppressWarnings("try") // the scope only brackets the work for the engine's accounting
    public <M> M apply(TensorOps<M> ops, M x, Nonlinearities nl, String site) {
        try (OperatorScope s = ops.operator(site)) {
            return down.apply(ops, nl.gelu(ops, up.apply(ops, x), site));
        }
    }
}
