package dev.polyhe.attention.kernel;

import dev.polyhe.api.arith.TensorOps;

/**
 * The row maximum (not of |x|) from the engine's {@code rowMaxAbs}: with m = max|x|, every x + m ≥ 0, so
 * max(x) = max|x + m| − m. Non-polynomial, like the max subtraction of the log-sum-exp trick it serves.
 */
public final class RowMax {
    private RowMax() {}

    public static <M> M of(TensorOps<M> ops, M x) {
        M maxAbs = ops.rowMaxAbs(x);
        return ops.sub(ops.rowMaxAbs(ops.add(x, maxAbs)), maxAbs);
    }
}
