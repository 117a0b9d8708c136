package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.core.bench.RandomCheckpoint;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the {@code polyhe serve} tests start from: a tiny GPT-NeoX checkpoint ({@code dir/tiny}) with PowerSoftmax
 * (p = 4, ε = 1e-3), calibrated on {@code dir/samples.json} by {@code polyhe calibrate}, and keys with bootstrapping
 * for 4 tokens on the insecure small ring by {@code polyhe keys generate} ({@code dir/keys}); and the HTTP calls the
 * tests make to the server.
 */
record ServedModel(Path model, Path keys) {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    /** The samples of {@link #shared()}: three queries of three tokens. */
    static final String SAMPLES = "{\"input_ids\": [[3, 8, 1], [5, 2, 9], [7, 7, 4]]}";

    private static ServedModel shared;

    /**
     * One served model, calibrated on {@link #SAMPLES}, for every test class of this test run (their keys take seconds
     * to make), in a temporary folder deleted when the run ends. The tests only read it.
     */
    static synchronized ServedModel shared() throws Exception {
        if (shared == null) {
            Path dir = Files.createTempDirectory("polyhe-served-model");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (Stream<Path> s = Files.walk(dir)) {
                    s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                } catch (IOException e) {
                    // a temporary folder left behind
                }
            }));
            shared = write(dir, SAMPLES);
        }
        return shared;
    }

    /** Writes the checkpoint, its calibration on {@code samples} (the JSON of {@code samples.json}) and the keys. */
    static ServedModel write(Path dir, String samples) throws Exception {
        Path model = RandomCheckpoint.write(dir.resolve("tiny"), RandomCheckpoint.shape("tiny"), 11);
        RandomCheckpoint.declareAttention(model, "power-softmax", Map.of("p", 4, "epsilon", 0.001));
        Files.writeString(dir.resolve("samples.json"), samples);
        var cal = polyhe(
                "calibrate",
                "--model",
                model.toString(),
                "--input",
                dir.resolve("samples.json").toString(),
                "--output",
                model.resolve("calibration.json").toString());
        assertEquals(0, cal.code(), cal.err());
        Path keys = DeployedCommands.generateKeys(
                        model,
                        model.resolve("calibration.json"),
                        "insecure-test-boot-dense-N10",
                        4,
                        dir.resolve("keys"))
                .keys();
        return new ServedModel(model, keys);
    }

    /** {@code b} sent to {@code url} with {@code token} as its bearer token (none if null). */
    static HttpResponse<String> send(String url, String token, HttpRequest.Builder b) throws Exception {
        // bounded, so that a stalled server fails the test instead of hanging it
        b.uri(URI.create(url)).timeout(Duration.ofSeconds(60));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(String url, String token) throws Exception {
        return send(url, token, HttpRequest.newBuilder());
    }

    /** The JSON error of {@code r}, which must have answered {@code status}. */
    static JsonNode error(HttpResponse<String> r, int status) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        JsonNode n = JSON.readTree(r.body());
        assertEquals(status, n.get("status").asInt(), r.body());
        return n;
    }
}
