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
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server on a network (issue 44), on loopback ports only: loopback by default; a server that slow clients and
 * event streams cannot stall; uploads checked before anything is kept; a tenant's quotas; one audit line per change
 * naming its tenant. (The command line's side, {@code polyhe serve}'s refusals and tokens, tenants through
 * {@code polyhe remote}, TLS and mutual TLS, is the launcher's ServeCommandTest.)
 */
class ServeSecurityTest {
    private static final String KEYSET = "keyset.properties";

    @TempDir
    static Path dir;

    static Path model;
    static Path keys;
    static Path query;
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
        query = served.encrypt(
                Files.writeString(dir.resolve("in.json"), "{\"input_ids\": [[3, 8, 1]]}"), dir.resolve("q.ct"));
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

    private static PolyHeServer.Settings settings(Path store, int workers, int queue) {
        return new PolyHeServer.Settings(
                0, List.of(model), store, workers, queue, 1L << 30, 256L << 20, 64L << 20, true, 0);
    }

    private static PolyHeServer.Network tenants(int maxKeySets) {
        return new PolyHeServer.Network("127.0.0.1", tokens, false, null, false, 256, 64, 16, maxKeySets, 8);
    }

    private static long entries(Path folder) throws Exception {
        if (!Files.isDirectory(folder)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(folder)) {
            return s.count();
        }
    }

    /** A zip of the server half with some files replaced ({@code name -> bytes}). */
    private static byte[] zip(Map<String, byte[]> replaced) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(b)) {
            for (String f : List.of(KEYSET, "parameters.json", "evaluation.keys")) {
                // stored as RemoteClient stores them; a replacement deflated (the zip bomb is one)
                z.setLevel(replaced.containsKey(f) ? Deflater.DEFAULT_COMPRESSION : Deflater.NO_COMPRESSION);
                z.putNextEntry(new ZipEntry(f));
                if (replaced.containsKey(f)) {
                    z.write(replaced.get(f));
                } else {
                    Files.copy(keys.resolve("server").resolve(f), z);
                }
            }
        }
        return b.toByteArray();
    }

    private static HttpResponse<String> upload(String url, String token, byte[] zip) throws Exception {
        return send(url + "/v1/keys", token, HttpRequest.newBuilder().PUT(HttpRequest.BodyPublishers.ofByteArray(zip)));
    }

    private static byte[] query() throws Exception {
        return Files.readAllBytes(query);
    }

    private static HttpResponse<String> submit(String url, String token, String keySet) throws Exception {
        return send(
                url + "/v1/jobs?model=tiny&key_set=" + keySet,
                token,
                HttpRequest.newBuilder().POST(HttpRequest.BodyPublishers.ofByteArray(query())));
    }

    private static String keySetId() throws Exception {
        return PolyHeServer.keySetId(keys.resolve("server"));
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }

    /** A zip of the server half with its entries stored, not deflated: where each byte lies in it is known. */
    private static byte[] storedZip(byte[] evaluationKeys) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(b)) {
            for (String f : List.of(KEYSET, "parameters.json", "evaluation.keys")) {
                byte[] data = f.equals("evaluation.keys")
                        ? evaluationKeys
                        : Files.readAllBytes(keys.resolve("server").resolve(f));
                ZipEntry e = new ZipEntry(f);
                e.setMethod(ZipEntry.STORED);
                e.setSize(data.length);
                java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                crc.update(data);
                e.setCrc(crc.getValue());
                z.putNextEntry(e);
                z.write(data);
            }
        }
        return b.toByteArray();
    }

    // 1. binding and refusal

    @Test
    void theDefaultAddressIsLoopback() throws Exception {
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(dir.resolve("loop-store"), 1, 1))) {
            assertTrue(s.address().getAddress().isLoopbackAddress(), s.address().toString());
        }
    }

    // 2. no client can stall it

    @Test
    void slowClientsAndEventStreamsLeaveHealthAnswering() throws Exception {
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(dir.resolve("stall-store"), 1, 4))) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(201, upload(url, null, zip(Map.of())).statusCode());
            // one job runs, two wait behind it: the last one's event streams stay open for two jobs' time
            String running = JSON.readTree(submit(url, null, keySetId()).body())
                    .get("job_id")
                    .asText();
            String next = JSON.readTree(submit(url, null, keySetId()).body())
                    .get("job_id")
                    .asText();
            String waiting = JSON.readTree(submit(url, null, keySetId()).body())
                    .get("job_id")
                    .asText();
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < 16; i++) {
                    Socket stream = new Socket("127.0.0.1", s.port());
                    held.add(stream);
                    stream.getOutputStream()
                            .write(("GET /v1/jobs/" + waiting + "/events HTTP/1.1\r\nHost: x\r\n\r\n")
                                    .getBytes(StandardCharsets.US_ASCII));
                    stream.getOutputStream().flush();
                    stream.setSoTimeout(10_000);
                    byte[] head = new byte[12];
                    assertTrue(stream.getInputStream().read(head) > 0, "stream " + i + " started");
                    assertTrue(new String(head, StandardCharsets.US_ASCII).contains("200"), "stream " + i);
                }
                // a tenant's 17th stream: 429, not a thread
                var more = get(url + "/v1/jobs/" + waiting + "/events", null);
                assertTrue(
                        error(more, 429).get("error").asText().contains("--max-event-streams-per-tenant"), more.body());
                // clients that never finish their headers
                for (int i = 0; i < 24; i++) {
                    Socket slow = new Socket("127.0.0.1", s.port());
                    held.add(slow);
                    slow.getOutputStream()
                            .write("GET /v1/health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                    slow.getOutputStream().flush();
                }
                var health = CompletableFuture.supplyAsync(() -> {
                            try {
                                return get(url + "/v1/health", null);
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        })
                        .get(5, TimeUnit.SECONDS);
                assertEquals(200, health.statusCode(), health.body());
                assertEquals("ok", JSON.readTree(health.body()).get("status").asText());
                assertEquals(200, get(url + "/v1/jobs/" + running, null).statusCode(), "status answers too");
            } finally {
                for (Socket h : held) {
                    h.close();
                }
                send(url + "/v1/jobs/" + waiting, null, HttpRequest.newBuilder().DELETE());
                send(url + "/v1/jobs/" + next, null, HttpRequest.newBuilder().DELETE());
                send(url + "/v1/jobs/" + running, null, HttpRequest.newBuilder().DELETE());
            }
        }
    }

    // 3. uploads checked before they are kept

    @Test
    void badKeySetPropertiesAnIdMismatchAndAZipBombStoreNothing() throws Exception {
        Path store = dir.resolve("check-store");
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(store, 1, 1), tenants(16))) {
            String url = "http://127.0.0.1:" + s.port();
            String props = Files.readString(keys.resolve("server").resolve(KEYSET));

            var abc = upload(
                    url,
                    alice,
                    zip(Map.of(
                            KEYSET,
                            props.replaceAll("packing-slots=\\d+", "packing-slots=abc")
                                    .getBytes(StandardCharsets.ISO_8859_1))));
            assertTrue(
                    error(abc, 400)
                            .get("error")
                            .asText()
                            .contains("packing-slots is 'abc'; expected a positive " + "whole number"),
                    abc.body());
            var noBackend = upload(
                    url,
                    alice,
                    zip(Map.of(KEYSET, props.replaceAll("backend=.*", "").getBytes(StandardCharsets.ISO_8859_1))));
            assertTrue(error(noBackend, 400).get("error").asText().contains("backend is missing"), noBackend.body());
            var odd = upload(
                    url,
                    alice,
                    zip(Map.of(
                            KEYSET,
                            (props + "\nsurprise=" + "x".repeat(300) + "\n").getBytes(StandardCharsets.ISO_8859_1))));
            assertTrue(
                    error(odd, 400).get("error").asText().contains("field 'surprise' is longer than 256"), odd.body());

            var mismatch = send(
                    url + "/v1/keys",
                    alice,
                    HttpRequest.newBuilder()
                            .header("X-Key-Set-Id", "0".repeat(64))
                            .PUT(HttpRequest.BodyPublishers.ofByteArray(zip(Map.of()))));
            assertTrue(error(mismatch, 400).get("error").asText().contains("corrupted in transit"), mismatch.body());

            // 64 MiB of zeros deflate to a few hundred KB: not key material (behind a real header, so that the
            // parser reads on: zeros are coefficients below every prime)
            byte[] zeros = new byte[64 << 20];
            System.arraycopy(Files.readAllBytes(keys.resolve("server").resolve("evaluation.keys")), 0, zeros, 0, 1024);
            var bomb = upload(url, alice, zip(Map.of("evaluation.keys", zeros)));
            assertTrue(error(bomb, 413).get("error").asText().contains("zip bomb"), bomb.body());
            var bigProps = upload(
                    url,
                    alice,
                    zip(Map.of(KEYSET, (props + "#" + "x".repeat(100_000)).getBytes(StandardCharsets.ISO_8859_1))));
            error(bigProps, 413);

            assertEquals(0, entries(store.resolve("keys")), "nothing stored from a refused upload");
            assertEquals(0, entries(store.resolve("tmp")), "nothing left half-written");
            assertEquals(0, entries(store.resolve("owners").resolve("alice")));
            error(get(url + "/v1/keys/" + keySetId(), alice), 404);

            // a field this server does not know (a newer client's, like data-format) is kept, short and printable
            var newer = upload(
                    url,
                    alice,
                    zip(Map.of(
                            KEYSET,
                            (props + "\ndata-format=ckks-cpu\nnewer-field=1\n")
                                    .getBytes(StandardCharsets.ISO_8859_1))));
            assertEquals(201, newer.statusCode(), newer.body());
        }
    }

    @Test
    void evaluationKeysAreParsedAsTheyStreamAndRefusedAtTheFirstMalformedRecord() throws Exception {
        byte[] evk = Files.readAllBytes(keys.resolve("server").resolve("evaluation.keys"));
        // where the limbs start: the blob's header (magic, version, kind, backend, parameter hash, key-set id), then
        // the relinearization key's digit count; each limb is the ring's 2^10 coefficients (the N10 preset)
        var header = new java.io.DataInputStream(new java.io.ByteArrayInputStream(evk));
        header.readInt();
        header.readShort();
        header.readByte();
        header.readUTF();
        header.readUTF();
        header.readUTF();
        header.readInt();
        int limbs = evk.length - header.available();
        int end = limbs + 4 * 8 * (1 << 10);
        byte[] bad = evk.clone();
        java.util.Arrays.fill(bad, end - 8, end, (byte) 0xff); // the fourth limb's last coefficient: -1
        byte[] zip = storedZip(bad);
        int keysAt = indexOf(zip, java.util.Arrays.copyOf(evk, 64));
        Path store = dir.resolve("parse-store");
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(store, 1, 1), tenants(16))) {
            String url = "http://127.0.0.1:" + s.port();
            // 300 MB announced; sent: the zip up to the malformed record, and the 64 KiB the JDK server drains
            // before it answers. The answer comes without the rest: the record was refused where it was met.
            try (Socket c = new Socket("127.0.0.1", s.port())) {
                c.setSoTimeout(30_000);
                OutputStream out = c.getOutputStream();
                out.write(("PUT /v1/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + alice + "\r\n"
                                + "Content-Length: 300000000\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(zip, 0, keysAt + end + (64 << 10));
                out.flush();
                var in = c.getInputStream();
                String head = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
                assertEquals("HTTP/1.1 400", head);
                String rest = new String(in.readNBytes(4096), StandardCharsets.UTF_8);
                assertTrue(
                        rest.contains("evaluation.keys is not the evaluation keys of these parameters: blob is "
                                + "corrupted: coefficient -1 is not below its prime"),
                        rest);
            }
            assertEquals(0, entries(store.resolve("keys")), "nothing stored");
            assertEquals(0, entries(store.resolve("tmp")), "nothing left half-written");

            // one byte of keys; the keys and 5 bytes more; the keys of other parameters' blob kind: 400 each
            var oneByte = upload(url, alice, zip(Map.of("evaluation.keys", new byte[] {7})));
            assertTrue(error(oneByte, 400).get("error").asText().contains("blob is truncated"), oneByte.body());
            byte[] longer = java.util.Arrays.copyOf(evk, evk.length + 5);
            var trailing = upload(url, alice, zip(Map.of("evaluation.keys", longer)));
            assertTrue(
                    error(trailing, 400)
                            .get("error")
                            .asText()
                            .contains("evaluation.keys goes on 5 bytes past " + "the end of its keys"),
                    trailing.body());
            var wrongKind = upload(
                    url,
                    alice,
                    zip(Map.of("evaluation.keys", Files.readAllBytes(keys.resolve("server/parameters.json")))));
            assertTrue(error(wrongKind, 400).get("error").asText().contains("not a PolyHE blob"), wrongKind.body());
            assertEquals(0, entries(store.resolve("keys")), "nothing stored");
            // the keys themselves: stored
            assertEquals(201, upload(url, alice, storedZip(evk)).statusCode());
        }
    }

    @Test
    void aTenantsQuotasOfKeySetsAndJobsAnswerBeforeTheBodyIsReadAndItsOwnerCanDelete() throws Exception {
        Path store = dir.resolve("quota-store");
        var oneEach = new PolyHeServer.Network("127.0.0.1", tokens, false, null, false, 256, 64, 16, 1, 1);
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(store, 1, 4), oneEach)) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(201, upload(url, alice, zip(Map.of())).statusCode());
            // another key set (one more comment line is another file, so another id): over alice's quota of one
            byte[] other = zip(Map.of(
                    KEYSET,
                    (Files.readString(keys.resolve("server").resolve(KEYSET)) + "# other\n")
                            .getBytes(StandardCharsets.ISO_8859_1)));
            var over = upload(url, alice, other);
            assertTrue(error(over, 507).get("error").asText().contains("--max-key-sets-per-tenant"), over.body());
            assertEquals(1, entries(store.resolve("keys")));
            // bob's quota is his own
            var bobs = upload(url, bob, other);
            assertEquals(201, bobs.statusCode(), bobs.body());
            String bobsId = JSON.readTree(bobs.body()).get("key_set").asText();

            String id = keySetId();
            var deleted =
                    send(url + "/v1/keys/" + id, alice, HttpRequest.newBuilder().DELETE());
            assertEquals(200, deleted.statusCode(), deleted.body());
            error(get(url + "/v1/keys/" + id, alice), 404);
            assertFalse(Files.exists(store.resolve("keys").resolve(id)), "no tenant owns it: it is gone");
            assertEquals(201, upload(url, alice, zip(Map.of())).statusCode(), "room again");

            // one job each: alice's second waits for her first to end (429), bob's goes in beside it
            var first = submit(url, alice, id);
            assertEquals(202, first.statusCode(), first.body());
            var second = submit(url, alice, id);
            assertTrue(error(second, 429).get("error").asText().contains("--max-jobs-per-tenant"), second.body());
            assertTrue(second.headers().firstValue("Retry-After").isPresent());
            var bobsJob = submit(url, bob, bobsId);
            assertEquals(202, bobsJob.statusCode(), bobsJob.body());
            for (var job : List.of(first, bobsJob)) {
                String jobId = JSON.readTree(job.body()).get("job_id").asText();
                String owner = job == first ? alice : bob;
                send(url + "/v1/jobs/" + jobId, owner, HttpRequest.newBuilder().DELETE());
                // running or queued, a cancelled job stops at its next operator, not at the end of the model
                JsonNode status = ended(url, owner, jobId);
                assertEquals("cancelled", status.get("state").asText(), status.toString());
            }
        }
    }

    @Test
    void aJunkQueryIsRefusedAtItsFirstBytesAndAKeySetAboveTheBudgetAtSubmit() throws Exception {
        Path store = dir.resolve("junk-store");
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(store, 1, 1))) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(201, upload(url, null, zip(Map.of())).statusCode());
            // 300 MB announced, 1.06 MB of junk sent: the answer comes without the rest, and nothing is written.
            // The junk is what the server reads before it answers (the 1 MiB it checks, then the JDK server's 64 KiB
            // drain), so that it closes with nothing unread: unread bytes would make its close a reset, which may
            // reach this client before the answer does.
            try (Socket c = new Socket("127.0.0.1", s.port())) {
                c.setSoTimeout(30_000);
                OutputStream out = c.getOutputStream();
                out.write(("POST /v1/jobs?model=tiny&key_set=" + keySetId() + " HTTP/1.1\r\nHost: x\r\n"
                                + "Content-Length: 300000000\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                byte[] junk = new byte[(1 << 20) + (64 << 10)];
                new java.util.Random(7).nextBytes(junk);
                out.write(junk);
                out.flush();
                String status = new String(c.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
                assertEquals("HTTP/1.1 400", status);
            }
            assertEquals(0, entries(store.resolve("jobs")), "no job folder for a refused query");
        }
        // a key set larger than the memory budget: 507 when the job is submitted, not a failure after the queue
        var small = new PolyHeServer.Settings(
                0, List.of(model), dir.resolve("budget-store"), 1, 1, 1 << 20, 256L << 20, 64L << 20, true, 0);
        try (PolyHeServer s = PolyHeServer.start(polyhe, small)) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(201, upload(url, null, zip(Map.of())).statusCode());
            var over = submit(url, null, keySetId());
            assertTrue(error(over, 507).get("error").asText().contains("--memory-budget"), over.body());
            assertEquals(0, entries(dir.resolve("budget-store").resolve("jobs")));
        }
    }

    // 4. the audit log

    @Test
    void everyStateChangeIsOneAuditLineNamingItsTenant() throws Exception {
        // slf4j-simple writes to whatever System.err is when it writes: the test reads it for a while
        java.io.PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        String first;
        String second;
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(dir.resolve("audit-store"), 1, 2), tenants(16))) {
            String url = "http://127.0.0.1:" + s.port();
            System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
            assertEquals(201, upload(url, alice, zip(Map.of())).statusCode());
            first = JSON.readTree(submit(url, alice, keySetId()).body())
                    .get("job_id")
                    .asText();
            second = JSON.readTree(submit(url, alice, keySetId()).body())
                    .get("job_id")
                    .asText();
            assertEquals(
                    200,
                    send(
                                    url + "/v1/jobs/" + second,
                                    alice,
                                    HttpRequest.newBuilder().DELETE())
                            .statusCode());
            assertEquals(
                    200,
                    send(
                                    url + "/v1/jobs/" + first,
                                    alice,
                                    HttpRequest.newBuilder().DELETE())
                            .statusCode());
            assertEquals(
                    200,
                    send(
                                    url + "/v1/keys/" + keySetId(),
                                    alice,
                                    HttpRequest.newBuilder().DELETE())
                            .statusCode());
            error(send(url + "/v1/jobs/" + first, bob, HttpRequest.newBuilder().DELETE()), 404);
        } finally {
            System.setErr(original);
        }
        List<String> audit = captured.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(l -> l.contains("audit tenant="))
                .toList();
        String log = String.join("\n", audit);
        for (String action : List.of(
                "upload key_set=" + keySetId(),
                "submit job=" + first,
                "submit job=" + second,
                "cancel job=" + first,
                "cancel job=" + second,
                "delete key_set=" + keySetId())) {
            assertTrue(log.contains("audit tenant=alice action=" + action), action + " in:\n" + log);
        }
        assertEquals(6, audit.size(), "one line per change, none for a refused request:\n" + log);
    }
}
