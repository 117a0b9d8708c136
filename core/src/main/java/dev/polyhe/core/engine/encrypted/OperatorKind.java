package dev.polyhe.core.engine.encrypted;

import java.util.Locale;

/** The operator kinds of the latency breakdown, as in the paper's Appendix G. */
public enum OperatorKind {
    PLAINTEXT_MATMUL("plaintext matmul"),
    CIPHERTEXT_MATMUL("ciphertext matmul"),
    LAYER_NORM("LayerNorm"),
    GELU("GELU"),
    ATTENTION_NORMALIZATION("attention normalisation"),
    BOOTSTRAPPING("bootstrapping"),
    OTHER("other");

    private final String label;

    OperatorKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /**
     * The kind an operator scope name announces: names containing "layernorm"/"layer_norm", "gelu" or
     * "attention-normalization"/"softmax" mark the non-linear operators; anything else is classified by the
     * primitive work done in it.
     */
    static OperatorKind ofScope(String scope) {
        String s = scope.toLowerCase(Locale.ROOT);
        if (s.contains("layernorm") || s.contains("layer_norm") || s.contains("ln_")) {
            return LAYER_NORM;
        }
        if (s.contains("gelu") || s.contains("mlp.act")) {
            return GELU;
        }
        if (s.contains("attention-normalization") || s.contains("softmax") || s.contains("attention.weights")) {
            return ATTENTION_NORMALIZATION;
        }
        return null;
    }
}
