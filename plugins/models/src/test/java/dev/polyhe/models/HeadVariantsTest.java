package dev.polyhe.models;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.inference.ErrorStats;
import dev.polyhe.core.inference.InferenceResult;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.models.SafetensorsWriter.Entry;
import dev.polyhe.models.safetensors.SafetensorsFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Output heads the reference files do not cover, checked against the definitions computed here from the model's
 * own last hidden state: RoBERTa's sigmoid classification head (the paper's variant) and pooler, GPT-NeoX with
 * tied word embeddings.
 */
class HeadVariantsTest {
    private static PolyHe polyhe;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() {
        polyhe = PolyHe.builder().build();
    }

    @AfterAll
    static void stop() {
        polyhe.close();
    }

    private Path variant(
            String model, String configFrom, String configTo, java.util.function.Consumer<Map<String, Entry>> edit)
            throws IOException {
        Path dir = Files.createTempDirectory(tmp, model);
        String config = Files.readString(Golden.dir(model).resolve("config.json"));
        assertTrue(config.contains(configFrom));
        Files.writeString(dir.resolve("config.json"), config.replace(configFrom, configTo));
        Map<String, Entry> tensors = SafetensorsWriter.readAll(Golden.dir(model).resolve("model.safetensors"));
        edit.accept(tensors);
        SafetensorsWriter.write(dir.resolve("model.safetensors"), tensors);
        return dir;
    }

    private static double[] weights(String model, String name) {
        try (SafetensorsFile f = SafetensorsFile.open(Golden.dir(model).resolve("model.safetensors"))) {
            return f.doubles(name);
        }
    }

    /** y = act(W x + b) for a [out, in] weight and one input row. */
    private static double[] dense(double[] w, double[] b, double[] x, DoubleUnaryOperator act) {
        double[] y = new double[b.length];
        for (int o = 0; o < y.length; o++) {
            double s = b[o];
            for (int i = 0; i < x.length; i++) {
                s += w[o * x.length + i] * x[i];
            }
            y[o] = act.applyAsDouble(s);
        }
        return y;
    }

    private InferenceResult run(Path dir, String model) {
        InferenceService service = polyhe.inference();
        ModelInput in = Golden.inputs(model).get(1);
        return service.run(service.load(dir).model(), in, service.exactNonlinearities());
    }

    @Test
    void robertaSigmoidClassificationHead() throws IOException {
        Path dir = variant(
                "roberta",
                "\"model_type\": \"roberta\",",
                "\"model_type\": \"roberta\", \"classifier_activation\": \"sigmoid\",",
                t -> {});
        InferenceResult r = run(dir, "roberta");
        double[] h0 = r.lastHiddenState().row(0);
        double[] hidden = dense(
                weights("roberta", "classifier.dense.weight"),
                weights("roberta", "classifier.dense.bias"),
                h0,
                x -> 1 / (1 + Math.exp(-x)));
        double[] logits = dense(
                weights("roberta", "classifier.out_proj.weight"),
                weights("roberta", "classifier.out_proj.bias"),
                hidden,
                x -> x);
        ErrorStats e = ErrorStats.between(r.logits(), new Matrix(1, 3, logits));
        assertTrue(e.max() < 1e-12, "sigmoid head: " + e);
    }

    @Test
    void robertaPoolerWhenThereIsNoClassifier() throws IOException {
        Path dir = variant("roberta", "\"model_type\": \"roberta\",", "\"model_type\": \"roberta\",", t -> {
            t.put("roberta.pooler.dense.weight", t.remove("classifier.dense.weight"));
            t.put("roberta.pooler.dense.bias", t.remove("classifier.dense.bias"));
            t.remove("classifier.out_proj.weight");
            t.remove("classifier.out_proj.bias");
        });
        InferenceResult r = run(dir, "roberta");
        double[] pooled = dense(
                weights("roberta", "classifier.dense.weight"),
                weights("roberta", "classifier.dense.bias"),
                r.lastHiddenState().row(0),
                Math::tanh);
        assertEquals(1, r.logits().rows());
        assertTrue(ErrorStats.between(r.logits(), new Matrix(1, 64, pooled)).max() < 1e-6);
    }

    @Test
    void gptNeoXWithTiedEmbeddings() throws IOException {
        Path dir = variant(
                "gpt_neox",
                "\"tie_word_embeddings\": false",
                "\"tie_word_embeddings\": true",
                t -> t.remove("embed_out.weight"));
        InferenceResult r = run(dir, "gpt_neox");
        double[] embed = weights("gpt_neox", "gpt_neox.embed_in.weight");
        Matrix last = r.lastHiddenState();
        double[] expected = new double[last.rows() * 128];
        for (int t = 0; t < last.rows(); t++) {
            double[] y = dense(embed, new double[128], last.row(t), x -> x);
            System.arraycopy(y, 0, expected, t * 128, 128);
        }
        assertTrue(ErrorStats.between(r.logits(), new Matrix(last.rows(), 128, expected))
                        .max()
                < 1e-6);
    }

    @Test
    void sequentialResidualDiffersFromParallel() throws IOException {
        Path dir = variant("gpt_neox", "\"use_parallel_residual\": true", "\"use_parallel_residual\": false", t -> {});
        InferenceResult sequential = run(dir, "gpt_neox");
        InferenceResult parallel = run(Golden.dir("gpt_neox"), "gpt_neox");
        assertTrue(ErrorStats.between(sequential.lastHiddenState(), parallel.lastHiddenState())
                        .max()
                > 1e-3);
    }
}
