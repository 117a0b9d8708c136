package dev.polyhe.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.core.ClientKeys;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.PrivateInference;
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
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the server's tests start from, made through the embedding façade as a client would: a tiny GPT-NeoX
 * checkpoint ({@code dir/tiny}) with PowerSoftmax (p = 4, ε = 1e-3), calibrated on {@code dir/samples.json}, and
 * keys with bootstrapping for 4 tokens on the insecure small ring ({@code dir/keys}, the folder {@code polyhe keys
 * generate} writes); and the HTTP calls the tests make to the server.
 */
record ServedModel(Path model, Path keys) {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String PRESET = "insecure-test-boot-dense-N10";

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
        Path samplesFile = Files.writeString(dir.resolve("samples.json"), samples);
        Path keys = dir.resolve("keys");
        try (PolyHe polyhe = PolyHe.builder().build()) {
            PrivateInference client = polyhe.privateInference(model, "ckks-cpu");
            client.calibrate(client.readInputs(samplesFile)).write(model.resolve("calibration.json"));
        }
        ServedModel served = new ServedModel(model, keys);
        served.generateKeys(keys, 4, true);
        return served;
    }

    /** Another key set for this model into {@code out}, as {@code polyhe keys generate} writes it. */
    Path generateKeys(Path out, int maxTokens, boolean bootstrapping) throws Exception {
        try (PolyHe polyhe = PolyHe.builder().build()) {
            try (ClientKeys k =
                    polyhe.privateInference(model, "ckks-cpu").generateKeys(PRESET, maxTokens, bootstrapping)) {
                k.write(out);
            }
        }
        return out;
    }

    /**
     * The first input of {@code input} encrypted under these keys into {@code query}, as {@code polyhe encrypt} does.
     */
    Path encrypt(Path input, Path query) throws Exception {
        return encrypt(keys, input, query);
    }

    /** The same under the key folder {@code keyFolder}. */
    Path encrypt(Path keyFolder, Path input, Path query) throws Exception {
        try (PolyHe polyhe = PolyHe.builder().build()) {
            PrivateInference client = polyhe.privateInference(model, "ckks-cpu");
            try (ClientKeys k = client.loadClientKeys(keyFolder)) {
                client.write(
                        k.serverKeys(),
                        client.encrypt(k, client.readInputs(input).get(0)),
                        query);
            }
        }
        return query;
    }

    /** A result file of the server decrypted with these keys, as {@code polyhe decrypt} does (throws if it cannot). */
    PrivateInference.Prediction decrypt(Path answer) throws Exception {
        try (PolyHe polyhe = PolyHe.builder().build()) {
            PrivateInference client = polyhe.privateInference(model, "ckks-cpu");
            try (ClientKeys k = client.loadClientKeys(keys)) {
                return client.decrypt(k, client.readAnswer(k, answer));
            }
        }
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

    /** The status of {@code job} once it has ended (or after 30 s of polling, whatever its state then). */
    static JsonNode ended(String url, String token, String job) throws Exception {
        JsonNode status = JSON.readTree(get(url + "/v1/jobs/" + job, token).body());
        for (int i = 0;
                i < 600
                        && List.of("queued", "running")
                                .contains(status.get("state").asText());
                i++) {
            Thread.sleep(50);
            status = JSON.readTree(get(url + "/v1/jobs/" + job, token).body());
        }
        return status;
    }

    /** The JSON error of {@code r}, which must have answered {@code status}. */
    static JsonNode error(HttpResponse<String> r, int status) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        JsonNode n = JSON.readTree(r.body());
        assertEquals(status, n.get("status").asInt(), r.body());
        return n;
    }
}
