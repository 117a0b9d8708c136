package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.Matrix;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.bench.RandomCheckpoint;
import dev.polyhe.core.bench.RandomCheckpoint.Architecture;
import dev.polyhe.core.bench.RandomCheckpoint.Init;
import dev.polyhe.core.bench.RandomCheckpoint.Shape;
import dev.polyhe.core.encrypted.OutputAgreement;
import dev.polyhe.core.inference.DeclaredAttention;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.ModelInputs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A checkpoint that declares no attention (every checkpoint on the Hub) runs as what it is, softmax, with no flag:
 * exactly in the plain model, approximated ({@value InferenceService#SOFTMAX_APPROXIMATION}) in the polynomial and
 * encrypted ones, each run saying so. The polynomial model is measured against the exact one on generated and shipped
 * models, the encrypted one against the polynomial one on the small bootstrapping test ring.
 */
class SoftmaxCheckpointTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PRESET = "insecure-test-boot-dense-N10";

    @TempDir
    static Path dir;

    static PolyHe polyhe;

    /** The smallest generated GPT-NeoX (one layer, hidden 8), no declared attention, and a 4-token query. */
    static Path tiny;

    static Path query;

    @BeforeAll
    static void open() throws Exception {
        polyhe = PolyHe.builder().build();
        tiny = RandomCheckpoint.write(dir.resolve("tiny"), RandomCheckpoint.shape("tiny"), 3);
        query = Files.writeString(dir.resolve("query.json"), "{\"input_ids\": [[1, 5, 9, 3]]}");
    }

    @AfterAll
    static void close() {
        polyhe.close();
    }

    /** A model without a declaration: generated, or a shipped one with its declaration taken out. */
    record Case(String name, Path model, String input) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> models() throws Exception {
        Path generated = Files.createDirectories(dir.resolve("generated"));
        return Stream.of(
                        generated(
                                generated,
                                Architecture.GPT_NEOX,
                                GeneratedModelFidelityTest.gptNeoX(64, 2, 192, 3),
                                Init.HF,
                                6,
                                11),
                        generated(
                                generated,
                                Architecture.GPT_NEOX,
                                GeneratedModelFidelityTest.gptNeoX(64, 2, 192, 3),
                                Init.TRAINED,
                                12,
                                15),
                        generated(
                                generated,
                                Architecture.ROBERTA,
                                GeneratedModelFidelityTest.encoder(32, 2, 64, 3, 40),
                                Init.HF,
                                6,
                                13),
                        generated(
                                generated,
                                Architecture.VIT,
                                GeneratedModelFidelityTest.vit(32, 4, 128, 3),
                                Init.SCALED,
                                5,
                                14),
                        shipped("tiny-pythia"),
                        shipped("tiny-roberta"),
                        shipped("tiny-vit"))
                .map(Arguments::of);
    }

    private static Case generated(Path root, Architecture arch, Shape shape, Init init, int tokens, long seed)
            throws Exception {
        Path model = RandomCheckpoint.write(root.resolve(String.valueOf(seed)), arch, shape, init, seed);
        String name = RandomCheckpoint.describe(arch, shape, init) + ", seed " + seed;
        return new Case(name, model, RandomCheckpoint.randomInput(arch, shape, tokens, seed));
    }

    private static Case shipped(String name) throws Exception {
        Path model = Files.createDirectories(dir.resolve("shipped").resolve(name));
        Path from = Path.of("../models").resolve(name);
        ObjectNode config =
                (ObjectNode) JSON.readTree(from.resolve("config.json").toFile());
        config.remove(DeclaredAttention.KEY);
        JSON.writeValue(model.resolve("config.json").toFile(), config);
        Files.copy(
                from.resolve("model.safetensors"),
                model.resolve("model.safetensors"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return new Case(name + " without its declaration", model, Files.readString(from.resolve("input.json")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void thePolynomialModelOfASoftmaxCheckpointFollowsTheExactOne(Case c) throws Exception {
        InferenceService service = polyhe.inference().withAttentionOf(c.model());
        assertEquals("softmax", service.attention().name(), "the exact model is the checkpoint's own softmax");
        var loaded = service.load(c.model());
        var inputs = ModelInputs.read(Files.writeString(c.model().resolve("query.json"), c.input()), loaded.model());
        var comparison = service.compare(loaded, inputs, service.calibrate(loaded, inputs));
        assertTrue(comparison.errors().outOfDomain().isEmpty(), "inputs within every domain: " + comparison.errors());
        double se = 0;
        double max = 0;
        long n = 0;
        boolean same = true;
        for (int i = 0; i < inputs.size(); i++) {
            Matrix exact = output(comparison.exact().get(i));
            OutputAgreement a =
                    OutputAgreement.between(output(comparison.polynomial().get(i)), exact);
            long values = (long) exact.rows() * exact.cols();
            se += a.mse() * values;
            n += values;
            max = Math.max(max, a.maxAbs());
            same &= a.samePrediction();
        }
        String what = String.format(
                Locale.ROOT, "%s: poly vs exact softmax mse %.2e, max %.2e, same prediction %s", c, se / n, max, same);
        System.out.println("softmax " + what);
        assertTrue(se / n <= 1e-4, what);
        assertTrue(same, what);
    }

    private static Matrix output(dev.polyhe.core.inference.InferenceResult r) {
        return r.logits() != null ? r.logits() : r.lastHiddenState();
    }

    @Test
    void inferSaysWhichAttentionRanAndWhyOnEveryEngine() throws Exception {
        for (String engine : new String[] {"plain", "poly"}) {
            Path out = dir.resolve(engine + ".json");
            var r = polyhe(
                    "infer",
                    "--engine",
                    engine,
                    "--model",
                    tiny.toString(),
                    "--input",
                    query.toString(),
                    "--output",
                    out.toString());
            assertEquals(0, r.code(), r.err());
            String expected = engine.equals("plain")
                    ? "softmax (the checkpoint declares none: softmax)"
                    : "softmax-square (the checkpoint declares none: softmax, approximated by softmax-square)";
            assertTrue(r.err().contains("polyhe infer: attention " + expected), r.err());
            assertEquals(
                    expected,
                    JSON.readTree(out.toFile()).get("attention_choice").asText());
        }
        Path declared = RandomCheckpoint.declareAttention(
                RandomCheckpoint.write(dir.resolve("declared"), RandomCheckpoint.shape("tiny"), 3),
                "power-softmax",
                java.util.Map.of("p", 4));
        var kept = polyhe("infer", "--engine", "poly", "--model", declared.toString(), "--input", query.toString());
        assertEquals(0, kept.code(), kept.err());
        assertTrue(kept.err().contains("attention power-softmax {p=4} (declared by the checkpoint)"), kept.err());
        var flag = polyhe(
                "infer",
                "--engine",
                "poly",
                "--attention",
                "softmax-taylor-goldschmidt",
                "--model",
                declared.toString(),
                "--input",
                query.toString());
        assertEquals(0, flag.code(), flag.err());
        assertTrue(flag.err().contains("attention softmax-taylor-goldschmidt (--attention)"), flag.err());
    }

    /**
     * The same model encrypted, in one process ({@code infer --engine ckks}) and through files ({@code keys generate
     * --model}, {@code encrypt}, {@code eval}, {@code decrypt}), against the polynomial model: MSE ≤ 1e-4, max ≤ 0.01,
     * the same token at every position.
     */
    @Test
    void encryptedSoftmaxFollowsThePolynomialModelInOneProcessAndThroughFiles() throws Exception {
        Path cal = dir.resolve("cal.json");
        var calibrate = polyhe(
                "calibrate", "--model", tiny.toString(), "--input", query.toString(), "--output", cal.toString());
        assertEquals(0, calibrate.code(), calibrate.err());
        assertTrue(calibrate.err().contains("approximated by softmax-square"), calibrate.err());
        Path poly = dir.resolve("poly-cal.json");
        var inf = polyhe(
                "infer",
                "--engine",
                "poly",
                "--model",
                tiny.toString(),
                "--input",
                query.toString(),
                "--calibration",
                cal.toString(),
                "--output",
                poly.toString());
        assertEquals(0, inf.code(), inf.err());

        Path ckks = dir.resolve("ckks.json");
        var run = polyhe(
                "infer",
                "--engine",
                "ckks",
                "--model",
                tiny.toString(),
                "--input",
                query.toString(),
                "--calibration",
                cal.toString(),
                "--preset",
                PRESET,
                "--output",
                ckks.toString());
        assertEquals(0, run.code(), run.err());
        JsonNode vsPoly = JSON.readTree(ckks.toFile()).get("error_vs_poly");
        System.out.println("softmax infer --engine ckks vs poly: " + vsPoly);
        assertTrue(vsPoly.get("mse").asDouble() <= 1e-4, vsPoly.toString());
        assertTrue(vsPoly.get("max_abs").asDouble() <= 0.01, vsPoly.toString());
        assertTrue(vsPoly.get("same_prediction").asBoolean(), vsPoly.toString());

        var commands = DeployedCommands.generateKeys(tiny, cal, PRESET, 4, dir.resolve("keys"));
        Path in = commands.encrypt(query, dir.resolve("in.ct"));
        Path out = dir.resolve("out.ct");
        var eval = commands.eval(in, out);
        assertTrue(
                eval.err().contains("polyhe eval: attention softmax-square (the checkpoint declares none"), eval.err());
        Path answer = commands.decrypt(out, dir.resolve("answer.json"));
        OutputAgreement a = OutputAgreement.between(logits(answer), logits(poly));
        String what = String.format(
                Locale.ROOT,
                "keys + encrypt + eval + decrypt vs poly: mse %.2e, max %.2e, same prediction %s",
                a.mse(),
                a.maxAbs(),
                a.samePrediction());
        System.out.println("softmax " + what);
        assertTrue(a.mse() <= 1e-4 && a.maxAbs() <= 0.01 && a.samePrediction(), what);
    }

    /** The first sample's logits of an output file (infer's or decrypt's). */
    private static Matrix logits(Path file) throws Exception {
        JsonNode rows = JSON.readTree(file.toFile()).get("logits").get(0);
        double[][] m = new double[rows.size()][];
        for (int i = 0; i < m.length; i++) {
            m[i] = new double[rows.get(i).size()];
            for (int j = 0; j < m[i].length; j++) {
                m[i][j] = rows.get(i).get(j).asDouble();
            }
        }
        return Matrix.of(m);
    }
}
