package dev.polyhe.models.layers;

import dev.polyhe.api.Matrix;

/** The multiplicative causal mask of decoder attention: query t sees keys 0..t (1), later keys are hidden (0). */
public final class CausalMask {
    private CausalMask() {}

    public static Matrix of(int tokens) {
        double[] m = new double[tokens * tokens];
        for (int q = 0; q < tokens; q++) {
            for (int k = 0; k <= q; k++) {
                m[q * tokens + k] = 1;
            }
        }
        return new Matrix(tokens, tokens, m);
    }
}
