package dev.polyhe.launcher;

import dev.polyhe.core.bench.RandomCheckpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * Writes a very small random GPT-NeoX checkpoint (config.json + model.safetensors) so that encrypted runs of a
 * whole model fit in a test: one layer, hidden 8, two heads, FFN 16, vocabulary 16.
 */
final class TinyCheckpoint {
    static final int HIDDEN = 8;
    static final int FFN = 16;
    static final int VOCAB = 16;

    private TinyCheckpoint() {}

    static Path write(Path dir, long seed) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("config.json"), """
                {"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "hidden_size": %d,
                 "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": %d, "vocab_size": %d,
                 "rotary_pct": 0.5, "rotary_emb_base": 10000, "max_position_embeddings": 32, "layer_norm_eps": 1e-05,
                 "use_parallel_residual": true, "tie_word_embeddings": false, "hidden_act": "gelu"}
                """.formatted(HIDDEN, FFN, VOCAB));
        Random rnd = new Random(seed);
        Map<String, float[]> t = new LinkedHashMap<>();
        Map<String, int[]> shapes = new LinkedHashMap<>();
        put(t, shapes, "embed_out.weight", rnd, 0.5, VOCAB, HIDDEN);
        put(t, shapes, "gpt_neox.embed_in.weight", rnd, 1.0, VOCAB, HIDDEN);
        norm(t, shapes, "gpt_neox.final_layer_norm", rnd);
        String l = "gpt_neox.layers.0.";
        put(t, shapes, l + "attention.dense.bias", rnd, 0.1, HIDDEN);
        put(t, shapes, l + "attention.dense.weight", rnd, 0.4, HIDDEN, HIDDEN);
        put(t, shapes, l + "attention.query_key_value.bias", rnd, 0.1, 3 * HIDDEN);
        put(t, shapes, l + "attention.query_key_value.weight", rnd, 0.4, 3 * HIDDEN, HIDDEN);
        norm(t, shapes, l + "input_layernorm", rnd);
        put(t, shapes, l + "mlp.dense_4h_to_h.bias", rnd, 0.1, HIDDEN);
        put(t, shapes, l + "mlp.dense_4h_to_h.weight", rnd, 0.3, HIDDEN, FFN);
        put(t, shapes, l + "mlp.dense_h_to_4h.bias", rnd, 0.1, FFN);
        put(t, shapes, l + "mlp.dense_h_to_4h.weight", rnd, 0.4, FFN, HIDDEN);
        norm(t, shapes, l + "post_attention_layernorm", rnd);
        RandomCheckpoint.writeSafetensors(dir.resolve("model.safetensors"), t, shapes);
        return dir;
    }

    private static void norm(Map<String, float[]> t, Map<String, int[]> s, String prefix, Random rnd) {
        float[] w = new float[HIDDEN];
        for (int i = 0; i < HIDDEN; i++) {
            w[i] = (float) (1 + 0.1 * rnd.nextGaussian());
        }
        t.put(prefix + ".weight", w);
        s.put(prefix + ".weight", new int[] {HIDDEN});
        put(t, s, prefix + ".bias", rnd, 0.1, HIDDEN);
    }

    private static void put(Map<String, float[]> t, Map<String, int[]> s, String name, Random rnd, double sd,
            int... shape) {
        int n = 1;
        for (int d : shape) {
            n *= d;
        }
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (sd * rnd.nextGaussian());
        }
        t.put(name, v);
        s.put(name, shape);
    }
}
