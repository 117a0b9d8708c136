package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static dev.polyhe.launcher.ServedModel.HTTP;
import static dev.polyhe.launcher.ServedModel.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.polyhe.core.PolyHe;
import dev.polyhe.server.PolyHeServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code polyhe remote} against a server on a loopback port: a tiny GPT-NeoX on an insecure small ring, keys
 * uploaded once, three queries at once, each decrypting to the plaintext polynomial model's answer. (The server's
 * answers to every fault are the server's ServeTest.)
 */
class RemoteCommandTest {

    @TempDir
    static Path dir;

    static Path model;
    static Path keys;
    static PolyHe polyhe;
    static PolyHeServer server;
    static String url;

    @BeforeAll
    static void start() throws Exception {
        ServedModel served = ServedModel.shared();
        model = served.model();
        keys = served.keys();
        for (int i = 0; i < 3; i++) {
            Files.writeString(
                    dir.resolve("in" + i + ".json"),
                    "{\"input_ids\": [[" + (3 + i) + ", " + (8 - i) + ", " + (1 + 2 * i) + "]]}");
        }
        polyhe = PolyHe.builder().threads(1).build();
        // a weight cache, so that the concurrent jobs below share encoded weights and still answer right
        server = PolyHeServer.start(
                polyhe,
                new PolyHeServer.Settings(
                        0,
                        List.of(model),
                        dir.resolve("store"),
                        2,
                        4,
                        1L << 30,
                        256L << 20,
                        64L << 20,
                        true,
                        64L << 20));
        url = "http://localhost:" + server.port();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        polyhe.close();
    }

    private static HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String keySetId() throws Exception {
        return PolyHeServer.keySetId(keys.resolve("server"));
    }

    @Test
    void threeClientsAtOnceEachDecryptThePolynomialModelsAnswer() throws Exception {
        var up = polyhe("remote", "keys", "upload", "--server", url, "--keys", keys.toString());
        assertEquals(0, up.code(), up.err());
        assertTrue(up.out().contains(keySetId()), up.out());
        var again = polyhe("remote", "keys", "upload", "--server", url, "--keys", keys.toString());
        assertTrue(again.out().contains("already stored"), "deduplicated: " + again.out());

        ExecutorService clients = Executors.newFixedThreadPool(3);
        List<Future<LauncherTest.Run>> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int q = i;
            runs.add(clients.submit(() -> polyhe(
                    "remote",
                    "infer",
                    "--server",
                    url,
                    "--model",
                    "tiny",
                    "--checkpoint",
                    model.toString(),
                    "--keys",
                    keys.toString(),
                    "--input",
                    dir.resolve("in" + q + ".json").toString(),
                    "--output",
                    dir.resolve("out" + q + ".json").toString(),
                    "--check")));
        }
        for (int i = 0; i < 3; i++) {
            var r = runs.get(i).get();
            assertEquals(0, r.code(), r.err());
            assertTrue(r.err().contains("done, block 1/1"), "progress followed: " + r.err());
            JsonNode out = JSON.readTree(dir.resolve("out" + i + ".json").toFile());
            assertEquals(
                    "[1,3,16]",
                    out.get("logits_shape").toString().replace(" ", ""),
                    "logits as infer writes them: " + out.get("logits_shape"));
            assertTrue(
                    out.get("error_vs_poly").get("mse").asDouble() <= 1e-4,
                    out.get("error_vs_poly").toString());
            assertTrue(out.get("error_vs_poly").get("same_prediction").asBoolean());
        }
        clients.shutdown();

        // the weight cache: every job looked its weights up; the last to start (after one of the first two ended)
        // found them all, and the three still answered right (above)
        boolean warmJob = false;
        for (int i = 0; i < 3; i++) {
            String job = JSON.readTree(dir.resolve("out" + i + ".json").toFile())
                    .get("job_id")
                    .asText();
            JsonNode w = JSON.readTree(send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs/" + job)))
                            .body())
                    .get("weight_cache");
            assertTrue(w != null && w.get("hits").asLong() + w.get("misses").asLong() > 0, "job " + job + ": " + w);
            warmJob |= w.get("misses").asLong() == 0 && w.get("hits").asLong() > 0;
        }
        assertTrue(warmJob, "one job found every weight encoded");

        JsonNode health = JSON.readTree(
                send(HttpRequest.newBuilder(URI.create(url + "/v1/health"))).body());
        assertEquals("ok", health.get("status").asText());
        assertEquals(1, health.get("keys_cached").asInt(), "the keys were loaded once for the three: " + health);
        String metrics =
                send(HttpRequest.newBuilder(URI.create(url + "/metrics"))).body();
        assertTrue(
                metrics.contains("# TYPE polyhe_queue_length gauge")
                        && metrics.contains("polyhe_jobs_done_total 3")
                        && metrics.contains("polyhe_key_cache_misses_total 1"),
                metrics);
        double engine = metric(metrics, "polyhe_engine_seconds_total");
        assertTrue(
                engine > 0 && engine <= metric(metrics, "polyhe_evaluation_seconds_total"),
                "the engine's own time is part of the jobs' time: " + metrics);
    }

    /**
     * The model's owner encrypts its weights ({@code encrypt-model}), uploads them for its key set ({@code remote
     * models upload}) and queries them by id ({@code remote infer --model ID}): the answer is the plaintext
     * polynomial model's; the model is listed, then deleted.
     */
    @Test
    void anEncryptedModelIsUploadedQueriedAndDeletedThroughTheCommands() throws Exception {
        Path encrypted = dir.resolve("encrypted-model");
        var enc = polyhe(
                "encrypt-model",
                "--model",
                model.toString(),
                "--keys",
                keys.toString(),
                "--calibration",
                model.resolve("calibration.json").toString(),
                "--out",
                encrypted.toString());
        assertEquals(0, enc.code(), enc.err());
        assertEquals(
                0,
                polyhe("remote", "keys", "upload", "--server", url, "--keys", keys.toString())
                        .code());
        var up = polyhe(
                "remote",
                "models",
                "upload",
                "--server",
                url,
                "--model",
                encrypted.toString(),
                "--keys",
                keys.toString());
        assertEquals(0, up.code(), up.err());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                        "model ([0-9a-f]{64}) stored for key set " + keySetId())
                .matcher(up.out());
        assertTrue(m.find(), up.out());
        String id = m.group(1);
        var again = polyhe(
                "remote",
                "models",
                "upload",
                "--server",
                url,
                "--model",
                encrypted.toString(),
                "--keys",
                keys.toString());
        assertTrue(again.out().contains("already stored"), again.out());
        var list = polyhe("remote", "models", "list", "--server", url);
        assertTrue(list.out().contains("served     tiny") && list.out().contains("encrypted  " + id), list.out());

        Path out = dir.resolve("encrypted-out.json");
        var infer = polyhe(
                "remote",
                "infer",
                "--server",
                url,
                "--model",
                id,
                "--checkpoint",
                model.toString(),
                "--keys",
                keys.toString(),
                "--input",
                dir.resolve("in0.json").toString(),
                "--output",
                out.toString(),
                "--check");
        assertEquals(0, infer.code(), infer.err());
        JsonNode error = JSON.readTree(out.toFile()).get("error_vs_poly");
        assertTrue(
                error.get("mse").asDouble() <= 1e-4
                        && error.get("max_abs").asDouble() <= 0.01
                        && error.get("same_prediction").asBoolean(),
                error.toString());

        var noCheckpoint = polyhe(
                "remote",
                "infer",
                "--server",
                url,
                "--model",
                id,
                "--keys",
                keys.toString(),
                "--input",
                dir.resolve("in0.json").toString(),
                "--output",
                out.toString());
        assertEquals(2, noCheckpoint.code(), noCheckpoint.err());
        assertTrue(noCheckpoint.err().contains("give --checkpoint"), noCheckpoint.err());
        var notAFolder = polyhe(
                "remote", "models", "upload", "--server", url, "--model", model.toString(), "--keys", keys.toString());
        assertTrue(notAFolder.err().contains("not an encrypted model folder"), notAFolder.err());

        assertEquals(
                0,
                polyhe("remote", "models", "delete", "--server", url, "--id", id)
                        .code());
        var gone = polyhe("remote", "models", "delete", "--server", url, "--id", id);
        assertTrue(gone.err().contains("404") && gone.err().contains("no encrypted model"), gone.err());
    }

    private static double metric(String metrics, String name) {
        return metrics.lines()
                .filter(l -> l.startsWith(name + " "))
                .mapToDouble(
                        l -> Double.parseDouble(l.substring(name.length() + 1).trim()))
                .findFirst()
                .orElseThrow(() -> new AssertionError(name + " missing: " + metrics));
    }
}
