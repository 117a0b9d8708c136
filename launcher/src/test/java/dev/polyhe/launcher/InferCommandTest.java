package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.core.bench.RandomCheckpoint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code polyhe infer} and {@code polyhe calibrate} end to end, with the shipped tiny Pythia and the reference
 * checkpoints of the models plugin's tests: the command line reproduces the reference outputs.
 */
class InferCommandTest {
    static final Path PYTHIA = Path.of("../models/tiny-pythia");
    static final Path GOLDEN = Path.of("../plugins/models/src/test/resources/golden");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** A safetensors file's F32 / I64 tensors as flat double lists (enough for the reference files). */
    static JsonNode header(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        long n = ByteBuffer.wrap(b, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        return JSON.readTree(new String(b, 8, (int) n, StandardCharsets.UTF_8));
    }

    static double[] tensor(Path file, String name) throws IOException {
        byte[] b = Files.readAllBytes(file);
        long n = ByteBuffer.wrap(b, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        JsonNode t =
                JSON.readTree(new String(b, 8, (int) n, StandardCharsets.UTF_8)).get(name);
        int begin = (int) (8 + n + t.get("data_offsets").get(0).asLong());
        int end = (int) (8 + n + t.get("data_offsets").get(1).asLong());
        ByteBuffer buf = ByteBuffer.wrap(b, begin, end - begin).order(ByteOrder.LITTLE_ENDIAN);
        boolean i64 = t.get("dtype").asText().equals("I64");
        double[] out = new double[(end - begin) / (i64 ? 8 : 4)];
        for (int i = 0; i < out.length; i++) {
            out[i] = i64 ? buf.getLong() : buf.getFloat();
        }
        return out;
    }

    /** The three reference inputs of a model as an infer input file. */
    private Path inputFile(String model) throws IOException {
        Path f = GOLDEN.resolve(model).resolve("inputs.safetensors");
        JsonNode h = header(f);
        ObjectNode root = JSON.createObjectNode();
        boolean text = h.has("case0.input_ids");
        ArrayNode batch = root.putArray(text ? "input_ids" : "pixel_values");
        for (int k = 0; k < 3; k++) {
            String name = "case" + k + (text ? ".input_ids" : ".pixel_values");
            double[] v = tensor(f, name);
            if (text) {
                ArrayNode seq = batch.addArray();
                for (double d : v) {
                    seq.add((long) d);
                }
            } else {
                JsonNode shape = h.get(name).get("shape");
                int c = shape.get(1).asInt();
                int s = shape.get(2).asInt();
                ArrayNode img = batch.addArray();
                int i = 0;
                for (int ch = 0; ch < c; ch++) {
                    ArrayNode plane = img.addArray();
                    for (int y = 0; y < s; y++) {
                        ArrayNode row = plane.addArray();
                        for (int x = 0; x < s; x++) {
                            row.add(v[i++]);
                        }
                    }
                }
            }
        }
        Path in = dir.resolve(model + "-inputs.json");
        JSON.writeValue(in.toFile(), root);
        return in;
    }

    private static List<Double> flat(JsonNode n) {
        List<Double> out = new ArrayList<>();
        if (n.isArray()) {
            n.forEach(c -> out.addAll(flat(c)));
        } else {
            out.add(n.asDouble());
        }
        return out;
    }

    private static double maxError(JsonNode actual, double[] expected) {
        List<Double> a = flat(actual);
        assertEquals(expected.length, a.size());
        double max = 0;
        for (int i = 0; i < expected.length; i++) {
            max = Math.max(max, Math.abs(a.get(i) - expected[i]));
        }
        return max;
    }

    @Test
    void theShippedPythiaReproducesTheReferencePowerSoftmaxOutputs() throws IOException {
        // no attention flag: the checkpoint declares the PowerSoftmax it was made for in its config.json
        Path out = dir.resolve("out.json");
        var r = polyhe(
                "infer",
                "--model",
                PYTHIA.toString(),
                "--input",
                inputFile("gpt_neox").toString(),
                "--output",
                out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode o = JSON.readTree(out.toFile());
        assertEquals("gpt_neox", o.get("model_type").asText());
        assertTrue(
                o.get("attention").asText().startsWith("power-softmax(p=4"),
                o.get("attention").asText());
        assertEquals(
                "[[7,64],[11,64],[16,64]]",
                o.get("last_hidden_state_shape").toString(),
                "samples of different lengths keep their own shapes");
        Path expected = GOLDEN.resolve("gpt_neox/expected_powersoftmax.safetensors");
        for (int k = 0; k < 3; k++) {
            assertTrue(maxError(o.get("last_hidden_state").get(k), tensor(expected, "case" + k + ".last_hidden_state"))
                    <= 1e-4);
            assertTrue(maxError(o.get("logits").get(k), tensor(expected, "case" + k + ".logits")) <= 1e-4);
        }
    }

    @Test
    void aCheckpointThatDeclaresNoAttentionRunsItsOwnSoftmaxApproximatedInThePolynomialModel() throws IOException {
        Path in = inputFile("gpt_neox");
        Path out = dir.resolve("softmax.json");
        var r = polyhe(
                "infer",
                "--model",
                GOLDEN.resolve("gpt_neox").toString(),
                "--input",
                in.toString(),
                "--output",
                out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode o = JSON.readTree(out.toFile());
        Path expected = GOLDEN.resolve("gpt_neox/expected_softmax.safetensors");
        for (int k = 0; k < 3; k++) {
            assertTrue(
                    maxError(o.get("logits").get(k), tensor(expected, "case" + k + ".logits")) <= 1e-4,
                    "plain is the checkpoint's own model, softmax and all");
        }
        // the polynomial engine approximates that softmax, with no flag, and says so
        Path poly = dir.resolve("softmax-poly.json");
        var approximated = polyhe(
                "infer",
                "--engine",
                "poly",
                "--model",
                GOLDEN.resolve("gpt_neox").toString(),
                "--input",
                in.toString(),
                "--output",
                poly.toString());
        assertEquals(0, approximated.code(), approximated.err());
        assertTrue(
                approximated.err().contains("the checkpoint declares none: softmax, approximated by softmax-square"),
                approximated.err());
        JsonNode p = JSON.readTree(poly.toFile());
        for (int k = 0; k < 3; k++) {
            double e = maxError(p.get("logits").get(k), tensor(expected, "case" + k + ".logits"));
            assertTrue(e <= 0.05, "case " + k + ": the polynomial model follows the exact softmax, max error " + e);
        }
    }

    @Test
    void aMalformedAttentionDeclarationIsACheckpointErrorNamingTheKey() throws IOException {
        Path model = Files.createDirectories(dir.resolve("declared"));
        String config = Files.readString(GOLDEN.resolve("gpt_neox/config.json"));
        for (String bad : List.of(
                "\"power-softmax\"",
                "{\"options\": {\"p\": 4}}",
                "{\"name\": \"power-softmax\", " + "\"options\": {\"p\": [4]}}",
                "{\"name\": \"power-softmax\", \"p\": 4}")) {
            Files.writeString(
                    model.resolve("config.json"),
                    "{\"polyhe_attention\": " + bad + ", " + config.substring(config.indexOf('{') + 1));
            var r = polyhe(
                    "infer",
                    "--model",
                    model.toString(),
                    "--input",
                    inputFile("gpt_neox").toString());
            assertEquals(2, r.code(), bad + ": " + r.out());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().contains("polyhe_attention"), bad + ": " + r.err());
        }
    }

    @Test
    void robertaAndVitReproduceTheReferenceSoftmaxLogits() throws IOException {
        for (String model : List.of("roberta", "vit")) {
            Path out = dir.resolve(model + ".json");
            var r = polyhe(
                    "infer",
                    "--model",
                    GOLDEN.resolve(model).toString(),
                    "--input",
                    inputFile(model).toString(),
                    "--attention",
                    "softmax",
                    "--output",
                    out.toString());
            assertEquals(0, r.code(), r.err());
            JsonNode o = JSON.readTree(out.toFile());
            int labels = model.equals("vit") ? 10 : 3;
            assertEquals("[3," + labels + "]", o.get("logits_shape").toString());
            if (model.equals("vit")) {
                assertEquals("[3,17,64]", o.get("last_hidden_state_shape").toString(), "images stack into one batch");
            }
            Path expected = GOLDEN.resolve(model).resolve("expected_softmax.safetensors");
            for (int k = 0; k < 3; k++) {
                assertTrue(maxError(o.get("logits").get(k), tensor(expected, "case" + k + ".logits")) <= 1e-4, model);
                assertTrue(
                        maxError(o.get("last_hidden_state").get(k), tensor(expected, "case" + k + ".last_hidden_state"))
                                <= 1e-4,
                        model);
            }
        }
    }

    @Test
    void calibrateThenInferPolyReportsTheErrorAgainstTheExactModel() throws IOException {
        Path in = inputFile("gpt_neox");
        Path cal = dir.resolve("cal.json");
        var c = polyhe("calibrate", "--model", PYTHIA.toString(), "--input", in.toString(), "--output", cal.toString());
        assertEquals(0, c.code(), c.err());
        assertTrue(c.out().contains("10 sites"), "4 per block, the final LayerNorm and the input: " + c.out());
        JsonNode calJson = JSON.readTree(cal.toFile());
        assertEquals("gpt_neox", calJson.get("model_type").asText());
        assertTrue(calJson.get("sites").get("layers.0.attention").has("row_power_sum_max"));

        Path out = dir.resolve("poly.json");
        var r = polyhe(
                "infer",
                "--model",
                PYTHIA.toString(),
                "--input",
                in.toString(),
                "--engine",
                "poly",
                "--calibration",
                cal.toString(),
                "--output",
                out.toString(),
                "--verbose");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("poly vs exact: last_hidden_state max"), r.out());
        assertTrue(r.out().contains("layer 1 "), "per-layer errors with --verbose: " + r.out());
        JsonNode errors = JSON.readTree(out.toFile()).get("errors_vs_exact");
        double hidden = errors.get("last_hidden_state").get("max").asDouble();
        double logits = errors.get("logits").get("max").asDouble();
        assertTrue(hidden > 0 && hidden <= 0.05, "last_hidden_state error " + hidden);
        assertTrue(logits > 0 && logits <= 0.05, "logits error " + logits);
        assertEquals(2, errors.get("layers").size());
        assertTrue(errors.get("out_of_domain").isEmpty());
    }

    /**
     * A division given on the command line is the polynomial model's: the exact model that records the calibration
     * divides exactly (its Goldschmidt once ran on the default domain [1e-3, 100], and a model whose sums lie beyond
     * it calibrated NaN: {@code bench layer --shape pythia-70m --attention-opt division=goldschmidt}), and the
     * polynomial model runs the division asked for, on the calibrated domain.
     */
    @Test
    void aDivisionGivenOnTheCommandLineIsThePolynomialModels() throws IOException {
        Path in = inputFile("gpt_neox");
        Path cal = dir.resolve("cal.json");
        List<String> attention = List.of(
                "--attention",
                "power-softmax",
                "--attention-opt",
                "division=goldschmidt",
                "--attention-opt",
                "iterations=18");
        List<String> calibrate = new ArrayList<>(List.of(
                "calibrate", "--model", PYTHIA.toString(), "--input", in.toString(), "--output", cal.toString()));
        calibrate.addAll(attention);
        var c = polyhe(calibrate.toArray(String[]::new));
        assertEquals(0, c.code(), c.err());
        String recorded = JSON.readTree(cal.toFile()).get("attention").asText();
        assertTrue(recorded.contains("exact") && !recorded.contains("oldschmidt"), "recorded with " + recorded);

        Path out = dir.resolve("poly.json");
        List<String> infer = new ArrayList<>(List.of(
                "infer",
                "--model",
                PYTHIA.toString(),
                "--input",
                in.toString(),
                "--engine",
                "poly",
                "--calibration",
                cal.toString(),
                "--output",
                out.toString()));
        infer.addAll(attention);
        var r = polyhe(infer.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("oldschmidt"), "the polynomial model divides as asked: " + r.out());
        double logits =
                JSON.readTree(out.toFile()).at("/errors_vs_exact/logits/max").asDouble();
        assertTrue(logits > 0 && logits <= 0.05, "logits error " + logits);
    }

    /**
     * PowerSoftmax's division on each row's own length (the default where the calibration has per-row statistics)
     * has a domain whose top is set by short rows, a single x^p: a query whose scores are a few percent above the
     * calibration's is tens of percent above in x^4, and Goldschmidt above its domain diverges. The domain's margin
     * is on the scores (ServeTest's query, which once decrypted to NaN).
     */
    @Test
    void aQueryScoringAFewPercentAboveTheCalibrationStaysOnTheDivisionsDomain() throws IOException {
        Path model = RandomCheckpoint.write(dir.resolve("tiny"), RandomCheckpoint.shape("tiny"), 11);
        RandomCheckpoint.declareAttention(model, "power-softmax", Map.of("p", 4, "epsilon", 0.001));
        Path samples =
                Files.writeString(dir.resolve("samples.json"), "{\"input_ids\": [[3, 8, 1], [5, 2, 9], [7, 7, 4]]}");
        Path query = Files.writeString(dir.resolve("query.json"), "{\"input_ids\": [[4, 7, 3]]}");
        Path cal = dir.resolve("cal.json");
        Path own = dir.resolve("own.json");
        assertEquals(
                0,
                polyhe(
                                "calibrate",
                                "--model",
                                model.toString(),
                                "--input",
                                samples.toString(),
                                "--output",
                                cal.toString())
                        .code());
        assertEquals(
                0,
                polyhe(
                                "calibrate",
                                "--model",
                                model.toString(),
                                "--input",
                                query.toString(),
                                "--output",
                                own.toString())
                        .code());
        double calibrated = JSON.readTree(cal.toFile())
                .at("/sites/layers.0.attention/row_visible_mean_max")
                .asDouble();
        double seen = JSON.readTree(own.toFile())
                .at("/sites/layers.0.attention/row_visible_mean_max")
                .asDouble();
        assertTrue(
                seen > 1.1 * calibrated && seen < Math.pow(1.1, 4) * calibrated,
                "the query's largest row mean of x^4 lies beyond a 10 % margin on x^4, within 10 % on x: " + seen
                        + " vs " + calibrated);

        Path out = dir.resolve("poly.json");
        var r = polyhe(
                "infer",
                "--model",
                model.toString(),
                "--input",
                query.toString(),
                "--engine",
                "poly",
                "--calibration",
                cal.toString(),
                "--output",
                out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("length-agnostic"), "each row divided by its own length by default: " + r.out());
        double logits =
                JSON.readTree(out.toFile()).at("/errors_vs_exact/logits/max").asDouble();
        assertTrue(logits <= 0.05, "the polynomial model follows the exact one: " + logits);
    }

    @Test
    void badCheckpointsAndInputsAreOneLineUsageErrors() throws IOException {
        Path in = inputFile("gpt_neox");
        Path broken = Files.createDirectories(dir.resolve("broken"));
        Files.copy(PYTHIA.resolve("config.json"), broken.resolve("config.json"));
        byte[] weights = Files.readAllBytes(PYTHIA.resolve("model.safetensors"));
        Files.write(broken.resolve("model.safetensors"), java.util.Arrays.copyOf(weights, weights.length / 2));
        var r = polyhe("infer", "--model", broken.toString(), "--input", in.toString());
        assertEquals(2, r.code());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("outside the data buffer") && r.err().contains("truncated"), r.err());

        Files.writeString(broken.resolve("config.json"), "{\"model_type\": \"bert\"}");
        r = polyhe("infer", "--model", broken.toString(), "--input", in.toString());
        assertEquals(2, r.code());
        assertTrue(
                r.err().contains("model_type 'bert' is not supported")
                        && r.err().contains("gpt_neox, roberta, vit"),
                r.err());

        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"input_ids\": [[1, 2, -3]]}");
        r = polyhe("infer", "--model", PYTHIA.toString(), "--input", bad.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("'input_ids[0][2]' = -3 is not a token id"), r.err());

        r = polyhe("infer", "--model", GOLDEN.resolve("vit").toString(), "--input", in.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("vit takes pixel_values, not input_ids"), r.err());

        r = polyhe("infer", "--model", PYTHIA.toString(), "--input", in.toString(), "--engine", "gpu");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--engine 'gpu' is not known; allowed: plain, poly, ckks"), r.err());
    }
}
