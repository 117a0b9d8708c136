/** An attention mechanism shipped as a third-party plugin: depends on the PolyHE api only. */
module com.example.polyhe.taylor {
    requires dev.polyhe.api;

    provides dev.polyhe.api.attention.AttentionMechanism with
            com.example.polyhe.taylor.TaylorSoftmax;
}
