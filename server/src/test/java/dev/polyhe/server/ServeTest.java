package dev.polyhe.server;

import static dev.polyhe.server.ServedModel.HTTP;
import static dev.polyhe.server.ServedModel.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.polyhe.core.PolyHe;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server on a loopback port with a tiny GPT-NeoX on an insecure small ring: every fault a server meets (bad
 * uploads, foreign or malformed queries, a full queue, a disconnect, a restart) answered with a JSON error while
 * nothing half-written stays in the store. (Three {@code polyhe remote} clients at once are the launcher's
 * RemoteCommandTest.)
 */
class ServeTest {

    @TempDir
    static Path dir;

    static Path model;
    static Path keys;
    static ServedModel served;
    static Path store;
    static PolyHe polyhe;
    static PolyHeServer server;
    static String url;

    @BeforeAll
    static void start() throws Exception {
        served = ServedModel.shared();
        model = served.model();
        keys = served.keys();
        for (int i = 0; i < 3; i++) {
            Files.writeString(
                    dir.resolve("in" + i + ".json"),
                    "{\"input_ids\": [[" + (3 + i) + ", " + (8 - i) + ", " + (1 + 2 * i) + "]]}");
        }
        store = dir.resolve("store");
        polyhe = PolyHe.builder().threads(1).build();
        server = startServer(store, 2, 4, 256L << 20);
    }

    static PolyHeServer startServer(Path store, int workers, int queue, long maxUpload) throws Exception {
        // a weight cache, so that the concurrent jobs below share encoded weights and still answer right
        PolyHeServer s = PolyHeServer.start(
                polyhe,
                new PolyHeServer.Settings(
                        0, List.of(model), store, workers, queue, 1L << 30, maxUpload, 64L << 20, true, 64L << 20));
        url = "http://localhost:" + s.port();
        return s;
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

    private static JsonNode errorOf(HttpResponse<String> r, int status) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        JsonNode n = JSON.readTree(r.body());
        assertEquals(status, n.get("status").asInt());
        assertTrue(n.get("error").asText().length() > 10, r.body());
        return n;
    }

    private static byte[] zip(Path serverHalf, String... extra) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(b)) {
            z.setLevel(Deflater.NO_COMPRESSION); // as RemoteClient uploads them
            for (String f : List.of("keyset.properties", "parameters.json", "evaluation.keys")) {
                z.putNextEntry(new ZipEntry(f));
                Files.copy(serverHalf.resolve(f), z);
            }
            for (String f : extra) {
                z.putNextEntry(new ZipEntry(f));
                z.write(new byte[] {1, 2, 3});
            }
        }
        return b.toByteArray();
    }

    private static long entries(Path folder) throws Exception {
        try (Stream<Path> s = Files.list(folder)) {
            return s.count();
        }
    }

    private static String keySetId() throws Exception {
        return PolyHeServer.keySetId(keys.resolve("server"));
    }

    private static Path encrypt(String name, Path keyFolder) throws Exception {
        return served.encrypt(keyFolder, dir.resolve("in0.json"), dir.resolve(name));
    }

    /** The key set uploaded to the server at {@link #url}, as {@code polyhe remote keys upload} does. */
    private static void upload() throws Exception {
        new RemoteClient(URI.create(url)).uploadKeys(keys.resolve("server"));
    }

    private static HttpResponse<String> submit(String modelName, String keySet, byte[] body) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs?model=" + modelName + "&key_set=" + keySet))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    @Test
    void badUploadsAreRefusedAndLeaveNothingInTheStore() throws Exception {
        long before = entries(store.resolve("keys"));
        var secret = send(HttpRequest.newBuilder(URI.create(url + "/v1/keys"))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(zip(keys.resolve("server"), "secret.key"))));
        assertTrue(errorOf(secret, 400).get("error").asText().contains("secret key"), secret.body());

        byte[] whole = zip(keys.resolve("server"));
        byte[] half = java.util.Arrays.copyOf(whole, whole.length / 2);
        errorOf(
                send(HttpRequest.newBuilder(URI.create(url + "/v1/keys"))
                        .PUT(HttpRequest.BodyPublishers.ofByteArray(half))),
                400);

        var tampered = send(HttpRequest.newBuilder(URI.create(url + "/v1/keys"))
                .header("X-Key-Set-Id", "0".repeat(64))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(whole)));
        assertTrue(errorOf(tampered, 400).get("error").asText().contains("corrupted in transit"), tampered.body());

        // a client that goes away halfway through its upload
        try (Socket s = new Socket("localhost", server.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("PUT /v1/keys HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + whole.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(whole, 0, whole.length / 3);
            out.flush();
        }
        for (int i = 0; i < 50 && entries(store.resolve("tmp")) > 0; i++) {
            Thread.sleep(100);
        }
        assertEquals(0, entries(store.resolve("tmp")), "no half-written upload left");
        assertEquals(before, entries(store.resolve("keys")), "nothing stored from a refused upload");

        try (PolyHeServer small = PolyHeServer.start(
                polyhe,
                new PolyHeServer.Settings(
                        0, List.of(model), dir.resolve("small-store"), 1, 1, 1L << 30, 4096, 1L << 20, true))) {
            var big = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://localhost:" + small.port() + "/v1/keys"))
                            .PUT(HttpRequest.BodyPublishers.ofByteArray(whole))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(errorOf(big, 413).get("error").asText().contains("4096"), big.body());
        }
        assertEquals(0, entries(dir.resolve("small-store/keys")));
    }

    @Test
    void theOpenApiDescriptionNamesEveryRoute() throws Exception {
        var r = send(HttpRequest.newBuilder(URI.create(url + "/v1/openapi.json")));
        assertEquals(200, r.statusCode());
        JsonNode api = JSON.readTree(r.body());
        assertTrue(api.get("openapi").asText().startsWith("3."), r.body());
        for (String path : List.of(
                "/v1/keys",
                "/v1/keys/{id}",
                "/v1/models",
                "/v1/models/{name}/calibration",
                "/v1/jobs",
                "/v1/jobs/{id}",
                "/v1/jobs/{id}/events",
                "/v1/jobs/{id}/result",
                "/v1/health",
                "/metrics")) {
            assertTrue(api.get("paths").has(path), "the description lacks " + path);
        }
    }

    @Test
    void aClientThatLeavesMidJobLeavesTheJobRunning() throws Exception {
        try (PolyHeServer own = startServer(dir.resolve("left-store"), 1, 1, 256L << 20)) {
            leaveMidJob(own);
        } finally {
            url = "http://localhost:" + server.port();
        }
    }

    private void leaveMidJob(PolyHeServer own) throws Exception {
        upload();
        var submitted = submit("tiny", keySetId(), Files.readAllBytes(encrypt("left.ct", keys)));
        assertEquals(202, submitted.statusCode(), submitted.body());
        String job = JSON.readTree(submitted.body()).get("job_id").asText();
        // follows the job's events, reads the first, and goes away without a word
        try (Socket s = new Socket("localhost", own.port())) {
            s.getOutputStream()
                    .write(("GET /v1/jobs/" + job + "/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            byte[] head = new byte[64];
            assertTrue(s.getInputStream().read(head) > 0, "the stream started");
        }
        String state = "";
        for (int i = 0; i < 1200 && !state.equals("done") && !state.equals("failed"); i++) {
            Thread.sleep(100);
            state = JSON.readTree(send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs/" + job)))
                            .body())
                    .get("state")
                    .asText();
        }
        assertEquals("done", state, "the job outlives its watcher");
        assertEquals(
                200,
                send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs/" + job + "/result")))
                        .statusCode());
        assertEquals(
                "ok",
                JSON.readTree(send(HttpRequest.newBuilder(URI.create(url + "/v1/health")))
                                .body())
                        .get("status")
                        .asText());
    }

    @Test
    void concurrentUploadsOfOneKeySetStoreItOnce() throws Exception {
        Path own = dir.resolve("race-store");
        byte[] whole = zip(keys.resolve("server"));
        try (PolyHeServer racing = PolyHeServer.start(
                polyhe,
                new PolyHeServer.Settings(0, List.of(model), own, 1, 1, 1L << 30, 256L << 20, 64L << 20, true))) {
            ExecutorService uploaders = Executors.newFixedThreadPool(4);
            List<Future<HttpResponse<String>>> ups = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                ups.add(uploaders.submit(() -> HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://localhost:" + racing.port() + "/v1/keys"))
                                .PUT(HttpRequest.BodyPublishers.ofByteArray(whole))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())));
            }
            int created = 0;
            for (var f : ups) {
                var r = f.get();
                assertTrue(r.statusCode() == 201 || r.statusCode() == 200, r.body());
                assertEquals(keySetId(), JSON.readTree(r.body()).get("key_set").asText());
                created += r.statusCode() == 201 ? 1 : 0;
            }
            uploaders.shutdown();
            assertEquals(1, created, "one upload stored it, the others found it stored");
        }
        assertEquals(1, entries(own.resolve("keys")));
        assertEquals(0, entries(own.resolve("tmp")), "no upload left half-written");
    }

    @Test
    void aJobItsServerDiedUnderIsReportedFailedAfterTheRestart() throws Exception {
        // what a killed server leaves: the query and its metadata, no status
        Path own = dir.resolve("killed-store");
        String job = java.util.UUID.randomUUID().toString();
        Path jobDir = Files.createDirectories(own.resolve("jobs").resolve(job));
        Files.copy(encrypt("killed.ct", keys), jobDir.resolve("query.ct"));
        Files.writeString(jobDir.resolve("query.ct.meta"), "model=tiny\nkey_set=" + keySetId() + "\n");
        try (PolyHeServer again = startServer(own, 1, 1, 256L << 20)) {
            JsonNode status = JSON.readTree(send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs/" + job)))
                    .body());
            assertEquals("failed", status.get("state").asText(), status.toString());
            assertTrue(status.get("error").asText().contains("submit it again"), status.toString());
            errorOf(send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs/" + job + "/result"))), 409);
        } finally {
            url = "http://localhost:" + server.port();
        }
        assertTrue(Files.isRegularFile(jobDir.resolve("status.json")), "the verdict is kept for the next restart");
    }

    @Test
    void queriesOfAnotherModelPackingOrFormatAreRefusedBeforeTheyAreQueued() throws Exception {
        upload();
        String id = keySetId();
        byte[] ct = Files.readAllBytes(encrypt("q.ct", keys));
        assertTrue(errorOf(submit("nope", id, ct), 404).get("error").asText().contains("this server runs: tiny"));
        assertTrue(errorOf(submit("tiny", "f".repeat(64), ct), 404)
                .get("error")
                .asText()
                .contains("upload it first"));
        var junk = submit("tiny", id, "not a ciphertext at all".getBytes(StandardCharsets.UTF_8));
        assertTrue(errorOf(junk, 400).get("error").asText().contains("not a valid encrypted tensor file"), junk.body());
        byte[] cut = java.util.Arrays.copyOf(ct, 10);
        errorOf(submit("tiny", id, cut), 400);

        // keys of another packing (more tokens): their ciphertexts do not fit this key set
        Path wide = dir.resolve("wide-keys");
        served.generateKeys(wide, 16, false);
        var foreign = submit("tiny", id, Files.readAllBytes(encrypt("wide.ct", wide)));
        assertTrue(errorOf(foreign, 409).get("error").asText().contains("slots per column"), foreign.body());

        // keys made the same way from another secret: same parameters and packing, another key set
        Path twin = dir.resolve("twin-keys");
        served.generateKeys(twin, 4, true);
        var stranger = submit("tiny", id, Files.readAllBytes(encrypt("twin.ct", twin)));
        assertTrue(
                errorOf(stranger, 409)
                        .get("error")
                        .asText()
                        .contains("another key set with the same parameters and packing"),
                stranger.body());

        var missing = send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs/no-such-job")));
        errorOf(missing, 404);
        var early = send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs/no-such-job/result")));
        errorOf(early, 404);
    }

    @Test
    void aFullQueueAnswers503AndARestartKeepsKeysAndResults() throws Exception {
        Path own = dir.resolve("queue-store");
        String id = keySetId();
        byte[] ct = Files.readAllBytes(encrypt("queue.ct", keys));
        String done;
        try (PolyHeServer one = startServer(own, 1, 1, 256L << 20)) {
            upload();
            List<HttpResponse<String>> answers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                answers.add(submit("tiny", id, ct));
            }
            var refused = answers.stream()
                    .filter(a -> a.statusCode() == 503)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("one worker and one place in the queue took three jobs"));
            errorOf(refused, 503);
            assertTrue(refused.headers().firstValue("Retry-After").isPresent());
            List<String> accepted = new ArrayList<>();
            for (var a : answers) {
                if (a.statusCode() == 202) {
                    accepted.add(JSON.readTree(a.body()).get("job_id").asText());
                }
            }
            // the last accepted one may still wait: cancel it, and see the first through
            String last = accepted.get(accepted.size() - 1);
            JsonNode cancelled = JSON.readTree(send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs/" + last))
                            .DELETE())
                    .body());
            assertNotNull(cancelled.get("state"));
            done = accepted.get(0);
            for (int i = 0; i < 600; i++) {
                String state = JSON.readTree(send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs/" + done)))
                                .body())
                        .get("state")
                        .asText();
                if (state.equals("done")) {
                    break;
                }
                assertFalse(state.equals("failed"), state);
                Thread.sleep(100);
            }
        }
        // a new server on the same store: the key set and the finished result are still there
        try (PolyHeServer again = startServer(own, 1, 1, 256L << 20)) {
            assertEquals(
                    200,
                    send(HttpRequest.newBuilder(URI.create(url + "/v1/keys/" + id)))
                            .statusCode());
            JsonNode status = JSON.readTree(send(HttpRequest.newBuilder(URI.create(url + "/v1/jobs/" + done)))
                    .body());
            assertEquals("done", status.get("state").asText(), status.toString());
            var result = HTTP.send(
                    HttpRequest.newBuilder(URI.create(url + "/v1/jobs/" + done + "/result"))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, result.statusCode());
            Path ct2 = dir.resolve("restart-result.ct");
            Files.write(ct2, result.body());
            assertNotNull(served.decrypt(ct2).lastHiddenState(), "the kept result decrypts");
        } finally {
            url = "http://localhost:" + server.port();
        }
    }
}
