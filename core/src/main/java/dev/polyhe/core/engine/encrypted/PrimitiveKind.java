package dev.polyhe.core.engine.encrypted;

/** The HE primitives the latency breakdown reports (the paper's Appendix G counts the same ones). */
public enum PrimitiveKind {
    BOOTSTRAP("bootstrap"),
    ROTATION("rotation"),
    ENCODE("encode"),
    MULTIPLY("multiply"),
    RESCALE("rescale"),
    ENCRYPT("encrypt"),
    DECRYPT("decrypt"),
    ADD("add/other");

    private final String label;

    PrimitiveKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
