package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code polyhe bench layer}: a random model of a named shape, encrypted, timed per block, checked for agreement. */
class BenchLayerTest {
    @Test
    void timesEveryBlockOfTheTinyShapeAndAgreesWithThePolynomialModel() {
        var r = polyhe(
                "bench",
                "layer",
                "--shape",
                "tiny",
                "--tokens",
                "4",
                "--layers",
                "1",
                "--logN",
                "10",
                "--insecure-test");
        assertEquals(0, r.code(), r.err() + r.out());
        assertTrue(r.out().contains("shape tiny (hidden 8, 2 heads, FFN 16), 1 block(s), 4 tokens"), r.out());
        assertTrue(r.out().matches("(?s).*block 0: \\d+\\.\\d s.*"), r.out());
        assertTrue(r.out().contains("per block:") && r.out().contains("93 s for 6 on an A100"), r.out());
        assertTrue(r.out().contains("plaintext matmul"), "the latency breakdown is printed: " + r.out());
        Matcher m = Pattern.compile("vs poly: mse ([0-9.e+-]+), same prediction (true|false)")
                .matcher(r.out());
        assertTrue(m.find(), r.out());
        assertTrue(Double.parseDouble(m.group(1)) < 1e-4, r.out());
        assertEquals("true", m.group(2), r.out());
    }

    @Test
    void formatJsonPutsTheWholeReportOnStdoutAndProgressOnStderr() throws Exception {
        var r = polyhe(
                "bench",
                "layer",
                "--shape",
                "tiny",
                "--tokens",
                "4",
                "--layers",
                "1",
                "--logN",
                "10",
                "--insecure-test",
                "--format",
                "json");
        assertEquals(0, r.code(), r.err() + r.out());
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertEquals("tiny", json.get("shape").asText());
        assertEquals(1, json.get("block_seconds").size());
        assertTrue(json.get("error_vs_poly").get("mse").asDouble() < 1e-4, r.out());
        var breakdown = json.get("ckks_samples").get(0).get("latency_breakdown");
        assertTrue(breakdown.get("total_seconds").asDouble() > 0, r.out());
        assertTrue(
                breakdown.get("by_primitive").has("rotation")
                        || breakdown.get("by_primitive").size() > 3,
                r.out());
        assertTrue(r.err().contains("ckks sample 0: block 1/1 done"), r.err());
    }

    /**
     * Bootstrapping through attention on column blocks with a padding row (3 tokens in 4 slots): the row sums fill
     * padding rows and head-less groups with real rows' sums, so no division sees a zero and blows up a bootstrap.
     */
    @Test
    void bootstrapsThroughBlockAttentionWithPaddingRows() {
        var r = polyhe(
                "bench",
                "layer",
                "--shape",
                "tiny",
                "--tokens",
                "3",
                "--layers",
                "1",
                "--preset",
                "insecure-test-boot-dense-N10");
        assertEquals(0, r.code(), r.err() + r.out());
        Matcher boots = Pattern.compile("bootstrap\\s+[0-9.]+ s\\s+[0-9.]+ %\\s+\\((\\d+) calls\\)")
                .matcher(r.out());
        assertTrue(boots.find() && Integer.parseInt(boots.group(1)) > 0, "the engine bootstraps: " + r.out());
        Matcher m = Pattern.compile("vs poly: mse ([0-9.e+-]+), same prediction (true|false)")
                .matcher(r.out());
        assertTrue(m.find(), r.out());
        assertTrue(Double.parseDouble(m.group(1)) < 1e-4, r.out());
        assertEquals("true", m.group(2), r.out());
    }

    /**
     * A bootstrapping layer on 1 and on 4 threads (from 4 the backend and the engine run independent ciphertexts at
     * once, the engine's decisions staying on its own thread): the same work in every operator, the same bootstraps
     * placed, the same agreement with the polynomial model.
     */
    @Test
    void fourThreadsDoAndPlaceWhatOneDoes() throws Exception {
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        java.util.List<com.fasterxml.jackson.databind.JsonNode> samples = new java.util.ArrayList<>();
        for (String threads : new String[] {"1", "4"}) {
            var r = polyhe(
                    "bench",
                    "layer",
                    "--shape",
                    "tiny",
                    "--tokens",
                    "4",
                    "--layers",
                    "1",
                    "--preset",
                    "insecure-test-boot-dense-N10",
                    "--threads",
                    threads,
                    "--format",
                    "json");
            assertEquals(0, r.code(), r.err() + r.out());
            var sample = mapper.readTree(r.out()).get("ckks_samples").get(0);
            assertTrue(sample.get("error_vs_poly").get("mse").asDouble() < 1e-4, r.out());
            assertTrue(sample.get("error_vs_poly").get("same_prediction").asBoolean(), r.out());
            samples.add(sample);
        }
        var one = samples.get(0).get("latency_breakdown");
        var four = samples.get(1).get("latency_breakdown");
        assertTrue(one.get("by_primitive").get("bootstrap").get("calls").asInt() > 0, "the layer bootstraps");
        assertEquals(samples.get(0).get("bootstrap_plan"), samples.get(1).get("bootstrap_plan"));
        for (String primitive : new String[] {"bootstrap", "rotation", "encode", "multiply", "rescale", "add/other"}) {
            assertEquals(
                    one.get("by_primitive").get(primitive).get("calls"),
                    four.get("by_primitive").get(primitive).get("calls"),
                    primitive);
        }
        var ops = one.get("by_operator").fieldNames();
        while (ops.hasNext()) {
            String op = ops.next();
            for (String count : new String[] {
                "ct_ct_multiplications", "ct_pt_multiplications", "rotations", "bootstraps", "rescales", "levels_used"
            }) {
                assertEquals(
                        one.get("by_operator").get(op).get(count),
                        four.get("by_operator").get(op).get(count),
                        op + ": " + count);
            }
        }
    }

    /**
     * {@code --trace-errors}: every step decrypted beside the plaintext polynomial model, every bootstrap with what
     * went in and what it added; a table on stdout and the same as JSON.
     */
    @Test
    void theErrorTraceReportsEveryStepAndBootstrap(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path json = dir.resolve("trace.json");
        var r = polyhe(
                "bench",
                "layer",
                "--shape",
                "tiny",
                "--tokens",
                "3",
                "--layers",
                "1",
                "--preset",
                "insecure-test-boot-dense-N10",
                "--trace-errors",
                json.toString());
        assertEquals(0, r.code(), r.err() + r.out());
        assertTrue(r.out().contains("error trace:") && r.out().contains("max|boot in|"), r.out());
        assertTrue(r.out().contains("layers.0.attention/attention-normalization"), r.out());
        var trace = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(json.toFile())
                .get("samples")
                .get(0);
        assertTrue(
                trace.get("steps").size() > 50, "steps: " + trace.get("steps").size());
        assertTrue(trace.get("bootstraps").size() > 0);
        for (var b : trace.get("bootstraps")) {
            DeployedPathTest.assertKeepsItsPrecision(b);
            assertTrue(
                    b.has("max_abs_in") && b.has("level_in") && b.has("input_factor") && b.has("bound"), b.toString());
        }
        for (var s : trace.get("steps")) {
            assertTrue(
                    s.has("level") && s.has("log2_scale") && s.has("relative_error") && s.has("max_abs_error"),
                    s.toString());
            assertEquals(
                    s.get("bound").isNull(), s.get("bound_source").isNull(), "a bound says where it came from: " + s);
            if (!s.get("bound").isNull()) {
                // on the calibration's own input every bound holds, and no slot (padding included) exceeds it
                double bound = s.get("bound").asDouble();
                double slack = 1 + dev.polyhe.core.engine.trace.ErrorTrace.BOUND_SLACK;
                assertTrue(
                        s.get("max_abs_reference").asDouble() <= bound * slack + 1e-9,
                        "a bound below the values: " + s);
                assertTrue(
                        s.get("max_abs_all_slots").asDouble() <= bound * slack + 1e-6, "a slot above the bound: " + s);
            }
        }
        assertTrue(r.out().contains("bounds: none below the values"), r.out());
        // the approximations' inputs are bounded by their calibrated domains, interval arithmetic fills the gaps
        assertTrue(
                Pattern.compile("steps' bounds: .*\\d+ from calibrated")
                        .matcher(r.out())
                        .find(),
                r.out());
        Matcher m = Pattern.compile("vs poly: mse ([0-9.e+-]+)").matcher(r.out());
        assertTrue(m.find() && Double.parseDouble(m.group(1)) < 1e-4, r.out());
        // a client-side tool for the encrypted engine only
        var plain = polyhe(
                "infer",
                "--model",
                "../models/tiny-pythia",
                "--input",
                "../models/tiny-pythia/input.json",
                "--trace-errors");
        assertEquals(2, plain.code(), plain.out());
        assertTrue(plain.err().contains("--trace-errors traces the ckks engine"), plain.err());
    }

    @Test
    void anUnknownShapeIsAnInputErrorNamingTheKnownOnes() {
        var r = polyhe("bench", "layer", "--shape", "gpt-5", "--insecure-test");
        assertEquals(2, r.code(), r.out());
        assertTrue(
                r.err().contains("unknown shape 'gpt-5'")
                        && r.err().contains("pythia-70m")
                        && r.err().contains("tiny"),
                r.err());
    }
}
