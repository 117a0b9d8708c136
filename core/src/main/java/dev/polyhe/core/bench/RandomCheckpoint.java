package dev.polyhe.core.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Checkpoints with random weights in the Hugging Face layout (config.json + model.safetensors, F32) for the three
 * architectures, so that a model of any shape can be measured and tested without its weights: the encrypted cost of
 * a layer depends on its shape, and its fidelity on the magnitudes the weights produce, which {@link Init} chooses.
 */
public final class RandomCheckpoint {
    /** The architecture of a generated checkpoint. */
    public enum Architecture {
        GPT_NEOX("gpt_neox"),
        ROBERTA("roberta"),
        VIT("vit");

        private final String modelType;

        Architecture(String modelType) {
            this.modelType = modelType;
        }

        public String modelType() {
            return modelType;
        }
    }

    /** How the weights are drawn. */
    public enum Init {
        /**
         * Hugging Face's initialization (initializer_range 0.02): every matrix and embedding N(0, 0.02²), biases 0,
         * LayerNorms 1 and 0. Activations and attention scores come out small, the case where encrypted
         * PowerSoftmax sees denominators near ε.
         */
        HF,
        /**
         * Weights of standard deviation 1/√fan-in, embeddings of 1, LayerNorm weights 1 ± 0.1 and small biases: every
         * product of order one and a residual stream of a few units, as trained models show.
         */
        SCALED,
        /**
         * What trained language models carry and the two above do not: {@link #SCALED}'s weights with LayerNorm gains
         * of spread 0.3, biases of 0.1, and a few outlier features (embedding columns ten times the rest), so that the
         * residual stream grows with depth and a LayerNorm's sum of squares reaches the hundreds.
         */
        TRAINED
    }

    /** How a GPT-NeoX block adds its two branches: both from the same input (Pythia's), or one after the other. */
    public enum Residual {
        PARALLEL,
        SEQUENTIAL
    }

    /**
     * A model shape: hidden size, heads, FFN width, vocabulary (labels for the classifiers), layers, and the share of
     * rotary dimensions (GPT-NeoX). ViT's images are {@code imageSize} pixels square in patches of {@code patchSize}.
     */
    public record Shape(
            String name,
            int hidden,
            int heads,
            int ffn,
            int vocab,
            int layers,
            double rotaryPct,
            int imageSize,
            int patchSize) {
        public Shape {
            if (hidden < 2 || heads < 1 || hidden % heads != 0 || ffn < 1 || vocab < 2 || layers < 1) {
                throw new IllegalArgumentException("shape " + name + ": hidden " + hidden + " must be a multiple of "
                        + "heads " + heads + ", and ffn, vocab and layers positive");
            }
            if (patchSize < 1 || imageSize % patchSize != 0) {
                throw new IllegalArgumentException("shape " + name + ": image size " + imageSize
                        + " must be a multiple of the patch size " + patchSize);
            }
        }

        /** A GPT-NeoX shape. */
        public Shape(String name, int hidden, int heads, int ffn, int vocab, int layers, double rotaryPct) {
            this(name, hidden, heads, ffn, vocab, layers, rotaryPct, 16, 8);
        }

        public Shape withLayers(int n) {
            return new Shape(name, hidden, heads, ffn, vocab, n, rotaryPct, imageSize, patchSize);
        }

        public Shape withVocab(int n) {
            return new Shape(name, hidden, heads, ffn, n, layers, rotaryPct, imageSize, patchSize);
        }
    }

    /**
     * Named shapes: {@code pythia-70m} (hidden 512, 8 heads, FFN 2048, rotary on a quarter of each head, Pythia's
     * padded vocabulary of 50 304 tokens for the LM head) and {@code tiny} (hidden 8, 2 heads, FFN 16) for tests.
     */
    public static final Map<String, Shape> SHAPES = Map.of(
            "pythia-70m", new Shape("pythia-70m", 512, 8, 2048, 50304, 1, 0.25),
            "tiny", new Shape("tiny", 8, 2, 16, 16, 1, 0.5));

    private static final ObjectMapper JSON = new ObjectMapper();

    private RandomCheckpoint() {}

    public static Shape shape(String name) {
        Shape s = SHAPES.get(name);
        if (s == null) {
            throw new IllegalArgumentException("unknown shape '" + name + "'; known: "
                    + SHAPES.keySet().stream().sorted().toList());
        }
        return s;
    }

    /** A GPT-NeoX checkpoint with {@link Init#SCALED} weights, written into {@code dir} (created if needed). */
    public static Path write(Path dir, Shape shape, long seed) throws IOException {
        return write(dir, Architecture.GPT_NEOX, shape, Init.SCALED, seed);
    }

    /**
     * Declares the polynomial attention the checkpoint in {@code dir} was (notionally) trained with: {@code
     * polyhe_attention} in its config.json; without it the checkpoint runs as softmax. Returns {@code dir}.
     */
    public static Path declareAttention(Path dir, String name, Map<String, ?> options) throws IOException {
        java.io.File file = dir.resolve("config.json").toFile();
        ObjectNode config = (ObjectNode) JSON.readTree(file);
        ObjectNode attention = config.putObject("polyhe_attention");
        attention.put("name", name);
        attention.set("options", JSON.valueToTree(options));
        JSON.writerWithDefaultPrettyPrinter().writeValue(file, config);
        return dir;
    }

    /** Writes the checkpoint into {@code dir} (created if needed) and returns it. */
    public static Path write(Path dir, Architecture arch, Shape shape, Init init, long seed) throws IOException {
        return write(dir, arch, shape, init, seed, Residual.PARALLEL);
    }

    /** {@link #write}, with the residual form of a GPT-NeoX ({@code residual} is ignored by other architectures). */
    public static Path write(Path dir, Architecture arch, Shape shape, Init init, long seed, Residual residual)
            throws IOException {
        Files.createDirectories(dir);
        Weights w = new Weights(new Random(seed), init);
        ObjectNode config = switch (arch) {
            case GPT_NEOX -> gptNeoX(shape, w, residual);
            case ROBERTA -> roberta(shape, w);
            case VIT -> vit(shape, w);
        };
        config.put("model_type", arch.modelType());
        config.put("hidden_size", shape.hidden());
        config.put("num_hidden_layers", shape.layers());
        config.put("num_attention_heads", shape.heads());
        config.put("intermediate_size", shape.ffn());
        config.put("hidden_act", "gelu");
        config.put("initializer_range", Weights.HF_RANGE);
        JSON.writerWithDefaultPrettyPrinter()
                .writeValue(dir.resolve("config.json").toFile(), config);
        writeSafetensors(dir.resolve("model.safetensors"), w.tensors, w.shapes);
        return dir;
    }

    private static ObjectNode gptNeoX(Shape s, Weights w, Residual residual) {
        int h = s.hidden();
        // a bias's spread is 0 under HF's initialization; these are the SCALED ones
        w.matrix("embed_out.weight", 1 / Math.sqrt(h), s.vocab(), h);
        w.embedding("gpt_neox.embed_in.weight", s.vocab(), h);
        w.layerNorm("gpt_neox.final_layer_norm", h);
        for (int l = 0; l < s.layers(); l++) {
            String p = "gpt_neox.layers." + l + ".";
            w.linear(p + "attention.dense", h, h);
            w.linear(p + "attention.query_key_value", 3 * h, h);
            w.layerNorm(p + "input_layernorm", h);
            w.linear(p + "mlp.dense_4h_to_h", h, s.ffn());
            w.linear(p + "mlp.dense_h_to_4h", s.ffn(), h);
            w.layerNorm(p + "post_attention_layernorm", h);
        }
        ObjectNode c = JSON.createObjectNode();
        c.putArray("architectures").add("GPTNeoXForCausalLM");
        c.put("vocab_size", s.vocab());
        c.put("rotary_pct", s.rotaryPct());
        c.put("rotary_emb_base", 10000);
        c.put("max_position_embeddings", 2048);
        c.put("layer_norm_eps", 1e-5);
        c.put("use_parallel_residual", residual == Residual.PARALLEL);
        c.put("tie_word_embeddings", false);
        c.put("attention_bias", true);
        return c;
    }

    /** A sequence classifier with {@code vocab} tokens and 3 labels. */
    private static ObjectNode roberta(Shape s, Weights w) {
        int h = s.hidden();
        int positions = MAX_TEXT_TOKENS + 2;
        String p = "roberta.";
        w.embedding(p + "embeddings.word_embeddings.weight", s.vocab(), h);
        w.embedding(p + "embeddings.position_embeddings.weight", positions, h);
        w.embedding(p + "embeddings.token_type_embeddings.weight", 1, h);
        w.layerNorm(p + "embeddings.LayerNorm", h);
        for (int l = 0; l < s.layers(); l++) {
            String q = p + "encoder.layer." + l + ".";
            w.linear(q + "attention.self.query", h, h);
            w.linear(q + "attention.self.key", h, h);
            w.linear(q + "attention.self.value", h, h);
            w.linear(q + "attention.output.dense", h, h);
            w.layerNorm(q + "attention.output.LayerNorm", h);
            w.linear(q + "intermediate.dense", s.ffn(), h);
            w.linear(q + "output.dense", h, s.ffn());
            w.layerNorm(q + "output.LayerNorm", h);
        }
        w.linear("classifier.dense", h, h);
        w.linear("classifier.out_proj", LABELS, h);
        ObjectNode c = JSON.createObjectNode();
        c.putArray("architectures").add("RobertaForSequenceClassification");
        c.put("vocab_size", s.vocab());
        c.put("max_position_embeddings", positions);
        c.put("type_vocab_size", 1);
        c.put("pad_token_id", 1);
        c.put("bos_token_id", 0);
        c.put("eos_token_id", 2);
        c.put("layer_norm_eps", 1e-5);
        c.put("position_embedding_type", "absolute");
        labels(c);
        return c;
    }

    /** An image classifier of 3-channel images and 3 labels. */
    private static ObjectNode vit(Shape s, Weights w) {
        int h = s.hidden();
        int patches = (s.imageSize() / s.patchSize()) * (s.imageSize() / s.patchSize());
        String p = "vit.";
        w.embedding(p + "embeddings.cls_token", 1, 1, h);
        w.embedding(p + "embeddings.position_embeddings", 1, patches + 1, h);
        w.matrix(
                p + "embeddings.patch_embeddings.projection.weight",
                1 / Math.sqrt(3.0 * s.patchSize() * s.patchSize()),
                h,
                3,
                s.patchSize(),
                s.patchSize());
        w.bias(p + "embeddings.patch_embeddings.projection.bias", h);
        for (int l = 0; l < s.layers(); l++) {
            String q = p + "encoder.layer." + l + ".";
            w.linear(q + "attention.attention.query", h, h);
            w.linear(q + "attention.attention.key", h, h);
            w.linear(q + "attention.attention.value", h, h);
            w.linear(q + "attention.output.dense", h, h);
            w.linear(q + "intermediate.dense", s.ffn(), h);
            w.linear(q + "output.dense", h, s.ffn());
            w.layerNorm(q + "layernorm_before", h);
            w.layerNorm(q + "layernorm_after", h);
        }
        w.layerNorm(p + "layernorm", h);
        w.linear("classifier", LABELS, h);
        ObjectNode c = JSON.createObjectNode();
        c.putArray("architectures").add("ViTForImageClassification");
        c.put("image_size", s.imageSize());
        c.put("patch_size", s.patchSize());
        c.put("num_channels", 3);
        c.put("qkv_bias", true);
        c.put("layer_norm_eps", 1e-12);
        labels(c);
        return c;
    }

    /** Labels of the generated classifiers. */
    private static final int LABELS = 3;
    /** The longest text input the generated RoBERTa's positions cover. */
    public static final int MAX_TEXT_TOKENS = 64;

    private static void labels(ObjectNode c) {
        ObjectNode id2label = c.putObject("id2label");
        ObjectNode label2id = c.putObject("label2id");
        for (int i = 0; i < LABELS; i++) {
            id2label.put(String.valueOf(i), "LABEL_" + i);
            label2id.put("LABEL_" + i, i);
        }
    }

    /** {"input_ids": [[...]]}: one sample of {@code tokens} random ids below the shape's vocabulary. */
    public static String randomInput(Shape shape, int tokens, long seed) {
        return randomInput(Architecture.GPT_NEOX, shape, tokens, seed);
    }

    /**
     * One random input for the architecture: {@code tokens} ids (RoBERTa's start with &lt;s&gt; = 0 and end with
     * &lt;/s&gt; = 2 and avoid the padding id 1), or a ViT image of normalized pixels ({@code tokens} is then
     * implied by the shape).
     */
    public static String randomInput(Architecture arch, Shape shape, int tokens, long seed) {
        Random rnd = new Random(seed);
        ObjectNode root = JSON.createObjectNode();
        if (arch == Architecture.VIT) {
            ArrayNode channels = root.putArray("pixel_values").addArray();
            for (int ch = 0; ch < 3; ch++) {
                ArrayNode rows = channels.addArray();
                for (int y = 0; y < shape.imageSize(); y++) {
                    ArrayNode row = rows.addArray();
                    for (int x = 0; x < shape.imageSize(); x++) {
                        row.add(Math.max(-1, Math.min(1, 0.5 * rnd.nextGaussian())));
                    }
                }
            }
            return root.toString();
        }
        ArrayNode ids = root.putArray("input_ids").addArray();
        for (int i = 0; i < tokens; i++) {
            if (arch == Architecture.ROBERTA) {
                ids.add(i == 0 ? 0 : i == tokens - 1 ? 2 : 3 + rnd.nextInt(shape.vocab() - 3));
            } else {
                ids.add(rnd.nextInt(shape.vocab()));
            }
        }
        return root.toString();
    }

    /** The tensors of one checkpoint as they are drawn, in order. */
    private static final class Weights {
        static final double HF_RANGE = 0.02;

        final Random rnd;
        final Init init;
        final Map<String, float[]> tensors = new LinkedHashMap<>();
        final Map<String, int[]> shapes = new LinkedHashMap<>();

        Weights(Random rnd, Init init) {
            this.rnd = rnd;
            this.init = init;
        }

        /** A weight matrix of {@code out × in}: 1/√in under SCALED. */
        void linear(String prefix, int out, int in) {
            matrix(prefix + ".weight", 1 / Math.sqrt(in), out, in);
            bias(prefix + ".bias", out);
        }

        void matrix(String name, double scaledSd, int... shape) {
            put(name, init == Init.HF ? HF_RANGE : scaledSd, 0, shape);
        }

        void embedding(String name, int... shape) {
            put(name, init == Init.HF ? HF_RANGE : 1.0, 0, shape);
            if (init == Init.TRAINED) { // a few outlier features: columns 1 and 1 + h/2 ten times the rest
                float[] v = tensors.get(name);
                int h = shape[shape.length - 1];
                for (int i = 0; i < v.length; i++) {
                    int col = i % h;
                    if (col == 1 || col == 1 + h / 2) {
                        v[i] *= 10;
                    }
                }
            }
        }

        void bias(String name, int n) {
            put(
                    name,
                    switch (init) {
                        case HF -> 0;
                        case SCALED -> 0.02;
                        case TRAINED -> 0.1;
                    },
                    0,
                    n);
        }

        void layerNorm(String prefix, int h) {
            put(
                    prefix + ".weight",
                    switch (init) {
                        case HF -> 0;
                        case SCALED -> 0.1;
                        case TRAINED -> 0.3;
                    },
                    1,
                    h);
            bias(prefix + ".bias", h);
        }

        private void put(String name, double sd, double mean, int... shape) {
            int n = 1;
            for (int d : shape) {
                n *= d;
            }
            float[] v = new float[n];
            for (int i = 0; i < n; i++) {
                v[i] = (float) (mean + sd * rnd.nextGaussian());
            }
            tensors.put(name, v);
            shapes.put(name, shape);
        }
    }

    /**
     * F32 tensors in the safetensors layout: an 8-byte little-endian header length, the JSON header (padded to
     * a multiple of 8), then the data in the order given.
     */
    public static void writeSafetensors(Path file, Map<String, float[]> tensors, Map<String, int[]> shapes)
            throws IOException {
        ObjectNode header = JSON.createObjectNode();
        long offset = 0;
        for (var e : tensors.entrySet()) {
            long bytes = 4L * e.getValue().length;
            ObjectNode t = header.putObject(e.getKey());
            t.put("dtype", "F32");
            ArrayNode shape = t.putArray("shape");
            for (int d : shapes.get(e.getKey())) {
                shape.add(d);
            }
            t.putArray("data_offsets").add(offset).add(offset + bytes);
            offset += bytes;
        }
        StringBuilder text = new StringBuilder(JSON.writeValueAsString(header));
        while (text.length() % 8 != 0) {
            text.append(' ');
        }
        byte[] h = text.toString().getBytes(StandardCharsets.UTF_8);
        try (OutputStream out = Files.newOutputStream(file)) {
            ByteBuffer len =
                    ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(h.length);
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

    /** A one-line description for reports, e.g. "gpt_neox hidden 64, 2 heads, FFN 192, 3 layers, HF init". */
    public static String describe(Architecture arch, Shape s, Init init) {
        return String.format(
                Locale.ROOT,
                "%s hidden %d, %d heads, FFN %d, %d layers, %s init",
                arch.modelType(),
                s.hidden(),
                s.heads(),
                s.ffn(),
                s.layers(),
                init.name().toLowerCase(Locale.ROOT));
    }
}
