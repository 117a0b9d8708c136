package dev.polyhe.core.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * A GPT-NeoX checkpoint of a given shape with random weights (config.json + model.safetensors, F32), so that a
 * layer of a real model's size can be measured without its weights: the encrypted cost of a layer depends on
 * its shape, not on the values. The scales keep activations in the range trained models show (LayerNorm
 * outputs of order 1, residual stream of order a few units).
 */
public final class RandomCheckpoint {
    /** A model shape: hidden size, heads, FFN width, vocabulary, layers, and the share of rotary dimensions. */
    public record Shape(String name, int hidden, int heads, int ffn, int vocab, int layers, double rotaryPct) {
        public Shape {
            if (hidden < 2 || heads < 1 || hidden % heads != 0 || ffn < 1 || vocab < 2 || layers < 1) {
                throw new IllegalArgumentException("shape " + name + ": hidden " + hidden + " must be a multiple of "
                        + "heads " + heads + ", and ffn, vocab and layers positive");
            }
        }

        public Shape withLayers(int n) {
            return new Shape(name, hidden, heads, ffn, vocab, n, rotaryPct);
        }
    }

    /**
     * Named shapes: {@code pythia-70m} (hidden 512, 8 heads, FFN 2048, rotary on a quarter of each head; a
     * 128-token vocabulary, since the embedding runs on the client and the head's size is not the layer's) and
     * {@code tiny} (hidden 8, 2 heads, FFN 16) for tests.
     */
    public static final Map<String, Shape> SHAPES = Map.of(
            "pythia-70m", new Shape("pythia-70m", 512, 8, 2048, 128, 1, 0.25),
            "tiny", new Shape("tiny", 8, 2, 16, 16, 1, 0.5));

    private RandomCheckpoint() {}

    public static Shape shape(String name) {
        Shape s = SHAPES.get(name);
        if (s == null) {
            throw new IllegalArgumentException("unknown shape '" + name + "'; known: " + SHAPES.keySet().stream().sorted().toList());
        }
        return s;
    }

    /** Writes the checkpoint into {@code dir} (created if needed) and returns it. */
    public static Path write(Path dir, Shape shape, long seed) throws IOException {
        Files.createDirectories(dir);
        int h = shape.hidden();
        int f = shape.ffn();
        Files.writeString(dir.resolve("config.json"), String.format(Locale.ROOT, """
                {"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "hidden_size": %d,
                 "num_hidden_layers": %d, "num_attention_heads": %d, "intermediate_size": %d, "vocab_size": %d,
                 "rotary_pct": %s, "rotary_emb_base": 10000, "max_position_embeddings": 2048,
                 "layer_norm_eps": 1e-05, "use_parallel_residual": true, "tie_word_embeddings": false,
                 "hidden_act": "gelu"}
                """, h, shape.layers(), shape.heads(), f, shape.vocab(), Double.toString(shape.rotaryPct())));
        Random rnd = new Random(seed);
        Map<String, float[]> t = new LinkedHashMap<>();
        Map<String, int[]> shapes = new LinkedHashMap<>();
        // weights of standard deviation ~1/sqrt(fan-in) keep each product of order one
        double wIn = 1 / Math.sqrt(h);
        double wFfn = 1 / Math.sqrt(f);
        put(t, shapes, "embed_out.weight", rnd, wIn, shape.vocab(), h);
        put(t, shapes, "gpt_neox.embed_in.weight", rnd, 1.0, shape.vocab(), h);
        norm(t, shapes, "gpt_neox.final_layer_norm", rnd, h);
        for (int l = 0; l < shape.layers(); l++) {
            String p = "gpt_neox.layers." + l + ".";
            put(t, shapes, p + "attention.dense.bias", rnd, 0.02, h);
            put(t, shapes, p + "attention.dense.weight", rnd, wIn, h, h);
            put(t, shapes, p + "attention.query_key_value.bias", rnd, 0.02, 3 * h);
            put(t, shapes, p + "attention.query_key_value.weight", rnd, wIn, 3 * h, h);
            norm(t, shapes, p + "input_layernorm", rnd, h);
            put(t, shapes, p + "mlp.dense_4h_to_h.bias", rnd, 0.02, h);
            put(t, shapes, p + "mlp.dense_4h_to_h.weight", rnd, wFfn, h, f);
            put(t, shapes, p + "mlp.dense_h_to_4h.bias", rnd, 0.02, f);
            put(t, shapes, p + "mlp.dense_h_to_4h.weight", rnd, wIn, f, h);
            norm(t, shapes, p + "post_attention_layernorm", rnd, h);
        }
        writeSafetensors(dir.resolve("model.safetensors"), t, shapes);
        return dir;
    }

    /** {"input_ids": [[...]]}: one sample of {@code tokens} random ids below the shape's vocabulary. */
    public static String randomInput(Shape shape, int tokens, long seed) {
        Random rnd = new Random(seed);
        StringBuilder sb = new StringBuilder("{\"input_ids\": [[");
        for (int i = 0; i < tokens; i++) {
            sb.append(i == 0 ? "" : ", ").append(rnd.nextInt(shape.vocab()));
        }
        return sb.append("]]}").toString();
    }

    private static void norm(Map<String, float[]> t, Map<String, int[]> s, String prefix, Random rnd, int h) {
        float[] w = new float[h];
        for (int i = 0; i < h; i++) {
            w[i] = (float) (1 + 0.1 * rnd.nextGaussian());
        }
        t.put(prefix + ".weight", w);
        s.put(prefix + ".weight", new int[] {h});
        put(t, s, prefix + ".bias", rnd, 0.02, h);
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

    /**
     * F32 tensors in the safetensors layout: an 8-byte little-endian header length, the JSON header (padded to
     * a multiple of 8), then the data in the order given.
     */
    public static void writeSafetensors(Path file, Map<String, float[]> tensors, Map<String, int[]> shapes)
            throws IOException {
        StringBuilder header = new StringBuilder("{");
        long offset = 0;
        for (var e : tensors.entrySet()) {
            long bytes = 4L * e.getValue().length;
            if (header.length() > 1) {
                header.append(',');
            }
            header.append('"').append(e.getKey()).append("\":{\"dtype\":\"F32\",\"shape\":")
                    .append(Arrays.toString(shapes.get(e.getKey())).replace(" ", ""))
                    .append(",\"data_offsets\":[").append(offset).append(',').append(offset + bytes).append("]}");
            offset += bytes;
        }
        header.append('}');
        while (header.length() % 8 != 0) {
            header.append(' ');
        }
        byte[] h = header.toString().getBytes(StandardCharsets.UTF_8);
        try (OutputStream out = Files.newOutputStream(file)) {
            ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(h.length);
            out.write(len.array());
            out.write(h);
            ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
            for (float[] v : tensors.values()) {
                for (float x : v) {
                    if (!buf.hasRemaining()) {
                        out.write(buf.array(), 0, buf.position());
                        buf.clear();
                    }
                    buf.putFloat(x);
                }
            }
            out.write(buf.array(), 0, buf.position());
        }
    }
}
