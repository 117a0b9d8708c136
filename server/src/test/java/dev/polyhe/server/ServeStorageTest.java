package dev.polyhe.server;

import static dev.polyhe.server.ServedModel.JSON;
import static dev.polyhe.server.ServedModel.ended;
import static dev.polyhe.server.ServedModel.error;
import static dev.polyhe.server.ServedModel.get;
import static dev.polyhe.server.ServedModel.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.polyhe.core.PolyHe;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code polyhe serve} keeps and for how long (issue 44): jobs removed after their time to live, quotas of
 * bytes and results answered before anything is written, and the operator's view on a loopback admin port. (The
 * command line's storage options are checked in the launcher's ServeSecurityTest.)
 */
class ServeStorageTest {

    @TempDir
    static Path dir;

    static Path model;
    static Path keys;
    static Path tokens;
    static String alice;
    static String bob;
    static String ops;
    static PolyHe polyhe;

    @BeforeAll
    static void prepare() throws Exception {
        ServedModel served = ServedModel.shared();
        model = served.model();
        keys = served.keys();
        served.encrypt(Files.writeString(dir.resolve("in.json"), "{\"input_ids\": [[3, 8, 1]]}"), dir.resolve("q.ct"));
        tokens = dir.resolve("tokens");
        alice = TokenFile.add(tokens, "alice", false);
        bob = TokenFile.add(tokens, "bob", false);
        ops = TokenFile.add(tokens, "ops", true);
        polyhe = PolyHe.builder().threads(1).build();
    }

    @AfterAll
    static void close() {
        polyhe.close();
    }

    private static PolyHeServer.Settings settings(Path store) {
        return new PolyHeServer.Settings(0, List.of(model), store, 1, 4, 1L << 30, 256L << 20, 64L << 20, true, 0);
    }

    private static byte[] zip() throws Exception {
        return zip("");
    }

    private static final Map<String, byte[]> ZIPS = new java.util.concurrent.ConcurrentHashMap<>();

    /** The server half, {@code keyset.properties} with a comment added: another file, so another key set. */
    private static byte[] zip(String comment) throws Exception {
        byte[] made = ZIPS.get(comment);
        if (made != null) {
            return made;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(b)) {
            z.setLevel(Deflater.NO_COMPRESSION); // as RemoteClient uploads them
            for (String f : List.of("keyset.properties", "parameters.json", "evaluation.keys")) {
                z.putNextEntry(new ZipEntry(f));
                Files.copy(keys.resolve("server").resolve(f), z);
                if (f.equals("keyset.properties") && !comment.isEmpty()) {
                    z.write(("# " + comment + "\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                }
            }
        }
        ZIPS.put(comment, b.toByteArray());
        return b.toByteArray();
    }

    /** Every file and folder under the store, with each file's size: what a refused request must leave alone. */
    private static List<String> tree(Path store) throws Exception {
        try (Stream<Path> s = Files.walk(store)) {
            return s.map(p -> store.relativize(p)
                            + (Files.isRegularFile(p) ? " " + p.toFile().length() : "/"))
                    .sorted()
                    .toList();
        }
    }

    private static long serverHalfBytes() throws Exception {
        long n = 0;
        for (String f : List.of("keyset.properties", "parameters.json", "evaluation.keys")) {
            n += Files.size(keys.resolve("server").resolve(f));
        }
        return n;
    }

    private static PolyHeServer.Network tenants() {
        return PolyHeServer.Network.loopbackTenants(tokens);
    }

    private static HttpResponse<String> upload(String url, String token) throws Exception {
        return send(
                url + "/v1/keys", token, HttpRequest.newBuilder().PUT(HttpRequest.BodyPublishers.ofByteArray(zip())));
    }

    private static HttpResponse<String> submit(String url, String token) throws Exception {
        return send(
                url + "/v1/jobs?model=tiny&key_set=" + PolyHeServer.keySetId(keys.resolve("server")),
                token,
                HttpRequest.newBuilder().POST(HttpRequest.BodyPublishers.ofFile(dir.resolve("q.ct"))));
    }

    /** Polls the job until it has ended. */
    private static List<String> entries(Path folder) throws Exception {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    // 1. the time to live of jobs

    @Test
    void aJobPastItsTimeToLiveAnswers404AndLeavesTheStore() throws Exception {
        Path store = dir.resolve("ttl-store");
        String keySet = PolyHeServer.keySetId(keys.resolve("server"));
        // a job a server before this one finished: its status file (no end time: it ended when it was written),
        // its query and its result
        String old = "00000000-0000-0000-0000-000000000044";
        Path oldDir = Files.createDirectories(store.resolve("jobs").resolve(old));
        Files.write(oldDir.resolve("query.ct"), new byte[100]);
        Files.write(oldDir.resolve("result.ct"), new byte[] {1, 2, 3});
        Files.writeString(
                oldDir.resolve("status.json"),
                "{\"job_id\": \"" + old + "\", \"model\": \"tiny\", " + "\"key_set\": \"" + keySet
                        + "\", \"state\": \"done\"}");
        var day = new PolyHeServer.Storage(Duration.ofHours(24));
        String job;
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(store), PolyHeServer.Network.loopbackDemo(), day)) {
            String url = "http://127.0.0.1:" + s.port();
            var result = get(url + "/v1/jobs/" + old + "/result", null);
            assertEquals(200, result.statusCode(), "kept within its TTL: " + result.body());
            assertEquals(3, result.body().length());

            // a job of this server that ends at once: its key set lost its parameters on the server's disk
            assertEquals(201, upload(url, null).statusCode());
            Files.delete(store.resolve("keys").resolve(keySet).resolve("parameters.json"));
            var submitted = submit(url, null);
            assertEquals(202, submitted.statusCode(), submitted.body());
            job = JSON.readTree(submitted.body()).get("job_id").asText();
            assertEquals("failed", ended(url, null, job).get("state").asText());
            assertEquals(200, get(url + "/v1/jobs/" + job, null).statusCode(), "kept within its TTL");
            assertEquals(List.of(old, job).stream().sorted().toList(), entries(store.resolve("jobs")));
            assertTrue(entries(store.resolve("jobs").resolve(job)).containsAll(List.of("query.ct", "status.json")));
        }

        // the same store with a TTL both jobs are past (their end times come from their status files)
        var tiny = new PolyHeServer.Storage(Duration.ofMillis(1));
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(store), PolyHeServer.Network.loopbackDemo(), tiny)) {
            String url = "http://127.0.0.1:" + s.port();
            // the same 404 as a job never submitted, for status, result and events alike
            String unknown = error(get(url + "/v1/jobs/no-such-job", null), 404)
                    .get("error")
                    .asText();
            for (String id : List.of(old, job)) {
                for (String path : List.of("", "/result", "/events")) {
                    assertEquals(
                            unknown.replace("no-such-job", id),
                            error(get(url + "/v1/jobs/" + id + path, null), 404)
                                    .get("error")
                                    .asText());
                }
            }
            // a job of this server: accepted, then gone as soon as it has ended
            var submitted = submit(url, null);
            assertEquals(202, submitted.statusCode(), submitted.body());
            String last = JSON.readTree(submitted.body()).get("job_id").asText();
            int status = 200;
            for (int i = 0; i < 600 && status == 200; i++) {
                Thread.sleep(20);
                status = get(url + "/v1/jobs/" + last, null).statusCode();
            }
            assertEquals(404, status);
            // and the sweeper (every TTL/4, 50 ms at least) removes their queries, results and status files
            for (int i = 0; i < 100 && !entries(store.resolve("jobs")).isEmpty(); i++) {
                Thread.sleep(20);
            }
            assertEquals(List.of(), entries(store.resolve("jobs")), "the expired jobs' folders are gone");
        }
    }

    // 2. quotas of bytes and results

    @Test
    void aTenantsBytesAndTheDisksHighWaterAnswer507BeforeAnythingIsWritten() throws Exception {
        Path store = dir.resolve("bytes-store");
        long query = Files.size(dir.resolve("q.ct"));
        // room for one key set and half a query
        var room = new PolyHeServer.Storage(
                Duration.ofHours(24), serverHalfBytes() + query / 2, DiskHighWater.DEFAULT, 64);
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(store), tenants(), room)) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(201, upload(url, alice).statusCode());
            List<String> before = tree(store);

            // another key set, its length declared: refused before a byte is read
            var declared = send(
                    url + "/v1/keys",
                    alice,
                    HttpRequest.newBuilder().PUT(HttpRequest.BodyPublishers.ofByteArray(zip("another"))));
            String e = error(declared, 507).get("error").asText();
            assertTrue(
                    e.contains("tenant alice keeps " + serverHalfBytes() + " bytes")
                            && e.contains("--max-tenant-bytes")
                            && e.contains("nothing was kept"),
                    e);
            assertFalse(e.contains(store.toString()), e);
            // the same, chunked (no length, as 'polyhe remote keys upload' sends it): stopped while it streams
            byte[] another = zip("chunked");
            var chunked = send(
                    url + "/v1/keys",
                    alice,
                    HttpRequest.newBuilder()
                            .PUT(HttpRequest.BodyPublishers.ofInputStream(
                                    () -> new java.io.ByteArrayInputStream(another))));
            assertTrue(error(chunked, 507).get("error").asText().contains("--max-tenant-bytes"), chunked.body());
            // a query that would pass it
            var q = submit(url, alice);
            assertTrue(error(q, 507).get("error").asText().contains("the query would add " + query), q.body());
            assertEquals(before, tree(store), "the store is as it was");

            // bob's bytes are his own
            assertEquals(201, upload(url, bob).statusCode());
        }

        // the disk: a mark it is past already refuses every write, whoever asks
        Path full = dir.resolve("full-store");
        var disk = new PolyHeServer.Storage(Duration.ofHours(24), 1L << 40, DiskHighWater.parse("0.000001"), 64);
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(full), PolyHeServer.Network.loopbackDemo(), disk)) {
            String url = "http://127.0.0.1:" + s.port();
            List<String> before = tree(full);
            var r = upload(url, null);
            assertTrue(
                    error(r, 507)
                            .get("error")
                            .asText()
                            .contains("high-water mark (--disk-high-water 0.000001 of " + "the disk in use"),
                    r.body());
            assertEquals(before, tree(full), "the store is as it was");
        }
    }

    @Test
    void aTenantsStoredJobsAreCountedAndDeletingAnEndedOneMakesRoom() throws Exception {
        Path store = dir.resolve("results-store");
        var one = new PolyHeServer.Storage(Duration.ofHours(24), 1L << 40, DiskHighWater.DEFAULT, 1);
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(store), tenants(), one)) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(201, upload(url, alice).statusCode());
            // jobs that end at once: the key set lost its parameters on the server's disk
            Files.delete(store.resolve("keys")
                    .resolve(PolyHeServer.keySetId(keys.resolve("server")))
                    .resolve("parameters.json"));
            var first = submit(url, alice);
            assertEquals(202, first.statusCode(), first.body());
            String job = JSON.readTree(first.body()).get("job_id").asText();
            assertEquals("failed", ended(url, alice, job).get("state").asText());

            List<String> before = tree(store);
            var second = submit(url, alice);
            String e = error(second, 507).get("error").asText();
            assertTrue(e.contains("keeps 1 jobs") && e.contains("--max-results-per-tenant 1"), e);
            assertEquals(before, tree(store), "the store is as it was");

            // bob cannot delete it; alice can, and its query and status go with it
            error(send(url + "/v1/jobs/" + job, bob, HttpRequest.newBuilder().DELETE()), 404);
            var deleted = send(
                    url + "/v1/jobs/" + job, alice, HttpRequest.newBuilder().DELETE());
            assertEquals(200, deleted.statusCode(), deleted.body());
            assertTrue(JSON.readTree(deleted.body()).get("deleted").asBoolean(), deleted.body());
            error(get(url + "/v1/jobs/" + job, alice), 404);
            assertEquals(List.of(), entries(store.resolve("jobs")));
            var third = submit(url, alice);
            assertEquals(202, third.statusCode(), third.body());
            ended(url, alice, JSON.readTree(third.body()).get("job_id").asText());
        }
    }

    // 3. the admin port

    @Test
    void theAdminPortServesMetricsAndTheAdminViewOnLoopbackWithoutAToken() throws Exception {
        Path store = dir.resolve("admin-store");
        try (PolyHeServer s = PolyHeServer.start(
                polyhe, settings(store), tenants().withAdminPort(0), PolyHeServer.Storage.defaults())) {
            String url = "http://127.0.0.1:" + s.port();
            assertTrue(
                    s.adminAddress().getAddress().isLoopbackAddress(),
                    s.adminAddress().toString());
            String admin = "http://" + s.adminAddress().getAddress().getHostAddress() + ":"
                    + s.adminAddress().getPort();
            assertEquals(201, upload(url, alice).statusCode());
            assertEquals(201, upload(url, bob).statusCode());
            // a job that ends at once: the key set lost its parameters on the server's disk
            Path keySet = store.resolve("keys").resolve(PolyHeServer.keySetId(keys.resolve("server")));
            Files.delete(keySet.resolve("parameters.json"));
            long keyBytes =
                    serverHalfBytes() - Files.size(keys.resolve("server").resolve("parameters.json"));
            var job = submit(url, alice);
            assertEquals(202, job.statusCode(), job.body());
            assertEquals(
                    "failed",
                    ended(url, alice, JSON.readTree(job.body()).get("job_id").asText())
                            .get("state")
                            .asText());

            // the admin port: no token asked
            var metrics = get(admin + "/metrics", null);
            assertEquals(200, metrics.statusCode(), metrics.body());
            assertTrue(metrics.body().contains("polyhe_keys_stored 1"), metrics.body());
            var view = get(admin + "/admin", null);
            assertEquals(200, view.statusCode(), view.body());
            JsonNode n = JSON.readTree(view.body());
            assertEquals(1, n.get("key_sets_stored").asInt(), view.body());
            JsonNode a = n.get("tenants").get("alice");
            assertEquals(1, a.get("key_sets").asInt(), view.body());
            assertEquals(1, a.get("jobs").get("failed").asInt(), view.body());
            assertEquals(
                    0, n.get("tenants").get("bob").get("jobs").get("failed").asInt(), view.body());
            assertTrue(a.get("bytes").asLong() >= keyBytes + Files.size(dir.resolve("q.ct")), view.body());
            assertEquals(keyBytes, n.get("tenants").get("bob").get("bytes").asLong(), view.body());
            error(get(admin + "/v1/keys", null), 404);
            error(send(admin + "/metrics", null, HttpRequest.newBuilder().DELETE()), 405);

            // the public port still asks an admin's token for both
            for (String path : List.of("/metrics", "/admin")) {
                error(get(url + path, null), 401);
                error(get(url + path, alice), 403);
                assertEquals(200, get(url + path, ops).statusCode(), path);
            }
            assertEquals(
                    1,
                    JSON.readTree(get(url + "/admin", ops).body())
                            .get("tenants")
                            .get("bob")
                            .get("key_sets")
                            .asInt());
        }
        // none unless asked for
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(dir.resolve("no-admin-store")), tenants())) {
            assertEquals(null, s.adminAddress());
        }
    }
}
