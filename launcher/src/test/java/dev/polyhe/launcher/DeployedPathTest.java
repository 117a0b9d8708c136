package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.core.PolyHe;
import dev.polyhe.server.PolyHeServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shipped tiny Pythia as a deployment runs it: keys made for the model with room for 16 tokens on the small
 * bootstrapping ring of the 128-bit design, and queries of fewer tokens through {@code encrypt}, {@code eval} and
 * {@code decrypt}, so that most rows of every ciphertext are padding. A 5-token query once came back with a
 * different token (issue 43): the padding rows' row sums reached Goldschmidt at zero and spoiled the bootstraps of
 * the real rows. The answer must not depend on how many tokens the keys allow beyond the query.
 */
class DeployedPathTest {
    static final Path PYTHIA = Path.of("../models/tiny-pythia");
    static final String[] TOKENS = {"57", "73", "75", "101", "7"};

    @TempDir
    static Path dir;

    static Path calibration;
    static Path keys;
    static DeployedCommands commands;

    @BeforeAll
    static void keys() {
        calibration = dir.resolve("cal.json");
        var cal = polyhe(
                "calibrate",
                "--model",
                PYTHIA.toString(),
                "--input",
                PYTHIA.resolve("input.json").toString(),
                "--output",
                calibration.toString());
        assertEquals(0, cal.code(), cal.err());
        commands = DeployedCommands.generateKeys(
                PYTHIA, calibration, "insecure-test-boot-dense-N10", 16, dir.resolve("keys"));
        keys = commands.keys();
    }

    @ParameterizedTest(name = "{0} of 16 tokens")
    @ValueSource(ints = {1, 5})
    void aShortQueryAnswersAsThePolynomialModel(int tokens) throws Exception {
        Path query = query(tokens);
        Path poly = dir.resolve("poly" + tokens + ".json");
        var inf = polyhe(
                "infer",
                "--engine",
                "poly",
                "--model",
                PYTHIA.toString(),
                "--input",
                query.toString(),
                "--calibration",
                calibration.toString(),
                "--output",
                poly.toString());
        assertEquals(0, inf.code(), inf.err());
        Path in = commands.encrypt(query, dir.resolve("in" + tokens + ".ct"));
        Path out = dir.resolve("out" + tokens + ".ct");
        commands.eval(in, out);
        Path answer = commands.decrypt(out, dir.resolve("answer" + tokens + ".json"));

        ObjectMapper json = new ObjectMapper();
        JsonNode got = json.readTree(answer.toFile()).get("logits").get(0);
        JsonNode want = json.readTree(poly.toFile()).get("logits").get(0);
        assertEquals(tokens, got.size(), "one row of logits per token of the query, none for the padding");
        double se = 0;
        double max = 0;
        int n = 0;
        for (int t = 0; t < tokens; t++) {
            for (int v = 0; v < want.get(t).size(); v++) {
                double d = Math.abs(
                        got.get(t).get(v).asDouble() - want.get(t).get(v).asDouble());
                se += d * d;
                max = Math.max(max, d);
                n++;
            }
            assertEquals(argmax(want.get(t)), argmax(got.get(t)), "same token at position " + t);
        }
        String what = String.format(Locale.ROOT, "%d tokens in 16-token keys: mse %.2e, max %.2e", tokens, se / n, max);
        assertTrue(se / n <= 1e-4 && max <= 0.01, what);
    }

    /**
     * The same 5-token query through {@code serve} and {@code remote infer --check}: the server evaluates in the
     * keys' 16-token packing, and the client compares with the plaintext polynomial model on the served calibration.
     */
    @Test
    void aShortQueryThroughTheServerAnswersAsThePolynomialModel() throws Exception {
        Path served = Files.createDirectories(dir.resolve("served").resolve("tiny-pythia"));
        for (String f : List.of("config.json", "model.safetensors")) {
            Files.copy(PYTHIA.resolve(f), served.resolve(f));
        }
        Files.copy(calibration, served.resolve("calibration.json"));
        Path query = query(TOKENS.length);
        try (PolyHe polyHe = PolyHe.builder().threads(1).build();
                PolyHeServer server = PolyHeServer.start(
                        polyHe,
                        new PolyHeServer.Settings(
                                0,
                                List.of(served),
                                dir.resolve("store"),
                                1,
                                2,
                                1L << 30,
                                256L << 20,
                                64L << 20,
                                true))) {
            String url = "http://localhost:" + server.port();
            var up = polyhe("remote", "keys", "upload", "--server", url, "--keys", keys.toString());
            assertEquals(0, up.code(), up.err());
            Path out = dir.resolve("served-out.json");
            var inf = polyhe(
                    "remote",
                    "infer",
                    "--server",
                    url,
                    "--model",
                    "tiny-pythia",
                    "--checkpoint",
                    served.toString(),
                    "--keys",
                    keys.toString(),
                    "--input",
                    query.toString(),
                    "--output",
                    out.toString(),
                    "--check");
            assertEquals(0, inf.code(), inf.err());
            JsonNode check = new ObjectMapper().readTree(out.toFile()).get("error_vs_poly");
            assertTrue(
                    check.get("mse").asDouble() <= 1e-4 && check.get("max_abs").asDouble() <= 0.01,
                    "5 tokens in 16-token keys, served: " + check);
            assertTrue(check.get("same_prediction").asBoolean(), check.toString());
        }
    }

    /**
     * The trace of the 5-token query in 16-token keys: no bound below the values, and every bootstrap keeps 16 bits
     * where the scale resolves them (see {@link #assertKeepsItsPrecision}).
     */
    @Test
    void everyBootstrapOfAShortQueryKeepsItsPrecision() throws Exception {
        Path query = query(TOKENS.length);
        Path json = dir.resolve("trace.json");
        var r = polyhe(
                "infer",
                "--engine",
                "ckks",
                "--model",
                PYTHIA.toString(),
                "--input",
                query.toString(),
                "--calibration",
                calibration.toString(),
                "--preset",
                "insecure-test-boot-dense-N10",
                "--max-tokens",
                "16",
                "--trace-errors",
                json.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("bounds: none below the values"), r.out());
        JsonNode boots =
                new ObjectMapper().readTree(json.toFile()).get("samples").get(0).get("bootstraps");
        // every bootstrapped ciphertext of the query (49 on the ten user levels of the test ring)
        assertTrue(boots.size() > 30, "bootstraps: " + boots.size());
        for (JsonNode b : boots) {
            assertKeepsItsPrecision(b);
        }
    }

    /**
     * A bootstrap (an element of a trace's {@code bootstraps}) keeps 16 bits of its values where the scale leaves room
     * for them, values above 2^17 times the trace's resolution 2^10/Δ (2^-13 at Δ = 2^40), and below that adds at most
     * twice the resolution: every value at Δ carries about that much rescaling noise, bootstrapped or not.
     */
    static void assertKeepsItsPrecision(JsonNode b) {
        double resolution =
                Math.scalb(1.0, 10 - (int) Math.round(b.get("log2_scale_in").asDouble()));
        double values = b.get("max_abs_in").asDouble() / b.get("input_factor").asDouble();
        if (values >= Math.scalb(resolution, 17)) {
            assertTrue(b.get("bits").asDouble() >= 16, "a bootstrap keeps 16 bits: " + b);
        } else {
            assertTrue(
                    b.get("max_abs_error").asDouble() <= 2 * resolution,
                    "a bootstrap of values near Δ's " + "resolution adds no more than the scale's noise: " + b);
        }
    }

    /** The query of the first {@code tokens} of {@link #TOKENS}. */
    private static Path query(int tokens) throws Exception {
        return Files.writeString(
                dir.resolve("q" + tokens + ".json"),
                "{\"input_ids\": [[" + String.join(", ", Arrays.copyOf(TOKENS, tokens)) + "]]}");
    }

    private static int argmax(JsonNode row) {
        int best = 0;
        for (int v = 1; v < row.size(); v++) {
            best = row.get(v).asDouble() > row.get(best).asDouble() ? v : best;
        }
        return best;
    }
}
