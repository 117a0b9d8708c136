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
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.Matrix;
import dev.polyhe.core.ClientKeys;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.PrivateInference;
import dev.polyhe.core.inference.Calibration;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tenant's encrypted model (the paper's App. H, issue 53) on {@code polyhe serve}: uploaded for one of its key
 * sets, run on its queries with the answer of the same model served in the clear, seen and used by no other tenant,
 * deleted; and every bad upload refused with nothing kept.
 */
class ServeEncryptedModelTest {
    @TempDir
    static Path dir;

    static ServedModel served;
    static Path encrypted;
    /** The same model encrypted under another key set of the same tenant. */
    static Path foreign;

    static Path keys2;
    static Path tokens;
    static String alice;
    static String bob;
    static PolyHe polyhe;

    @BeforeAll
    static void prepare() throws Exception {
        served = ServedModel.shared();
        Path input = Files.writeString(dir.resolve("in.json"), "{\"input_ids\": [[3, 8, 1]]}");
        served.encrypt(input, dir.resolve("q.ct"));
        keys2 = served.generateKeys(dir.resolve("keys2"), 4, true);
        served.encrypt(keys2, input, dir.resolve("q2.ct"));
        encrypted = encryptModel(served.keys(), dir.resolve("encrypted"));
        foreign = encryptModel(keys2, dir.resolve("foreign"));
        tokens = dir.resolve("tokens");
        alice = TokenFile.add(tokens, "alice", false);
        bob = TokenFile.add(tokens, "bob", false);
        polyhe = PolyHe.builder().threads(1).build();
    }

    @AfterAll
    static void close() {
        polyhe.close();
    }

    /** The model's weights encrypted under {@code keys}, as {@code polyhe encrypt-model} writes them. */
    private static Path encryptModel(Path keys, Path out) throws Exception {
        try (PolyHe p = PolyHe.builder().build()) {
            PrivateInference owner = p.privateInference(served.model(), "ckks-cpu");
            try (ClientKeys k = owner.loadClientKeys(keys)) {
                owner.encryptModel(k, Calibration.ofServedModel(served.model()), out);
            }
        }
        return out;
    }

    private static PolyHeServer start(Path store, int maxModels) throws Exception {
        var settings = new PolyHeServer.Settings(
                0, List.of(served.model()), store, 1, 4, 1L << 30, 256L << 20, 64L << 20, true, 0);
        var storage = new PolyHeServer.Storage(
                PolyHeServer.Storage.JOB_TTL,
                PolyHeServer.Storage.MAX_TENANT_BYTES,
                DiskHighWater.DEFAULT,
                PolyHeServer.Storage.MAX_RESULTS_PER_TENANT,
                maxModels);
        return PolyHeServer.start(polyhe, settings, PolyHeServer.Network.loopbackTenants(tokens), storage);
    }

    /** A zip of {@code files} of {@code folder}, each through {@code change} (by name), stored as clients send them. */
    private static byte[] zip(Path folder, List<String> files, Map<String, UnaryOperator<byte[]>> change)
            throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(b)) {
            z.setLevel(Deflater.NO_COMPRESSION);
            for (String f : files) {
                z.putNextEntry(new ZipEntry(f));
                byte[] bytes = Files.readAllBytes(folder.resolve(f));
                z.write(change.getOrDefault(f, x -> x).apply(bytes));
            }
        }
        return b.toByteArray();
    }

    private static HttpResponse<String> uploadKeys(String url, String token, Path keys) throws Exception {
        byte[] body = zip(keys.resolve("server"), KeyStore.SERVER_FILES, Map.of());
        return send(
                url + "/v1/keys", token, HttpRequest.newBuilder().PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    private static HttpResponse<String> uploadModel(String url, String token, String keySet, byte[] zip)
            throws Exception {
        return send(
                url + "/v1/models?key_set=" + keySet,
                token,
                HttpRequest.newBuilder().PUT(HttpRequest.BodyPublishers.ofByteArray(zip)));
    }

    private static HttpResponse<String> submit(String url, String token, String model, String keySet, Path query)
            throws Exception {
        return send(
                url + "/v1/jobs?model=" + model + "&key_set=" + keySet,
                token,
                HttpRequest.newBuilder().POST(HttpRequest.BodyPublishers.ofFile(query)));
    }

    /** The decrypted answer of a query run to its end. */
    private static PrivateInference.Prediction answer(String url, String model, String keySet) throws Exception {
        var submitted = submit(url, alice, model, keySet, dir.resolve("q.ct"));
        assertEquals(202, submitted.statusCode(), submitted.body());
        String job = JSON.readTree(submitted.body()).get("job_id").asText();
        JsonNode status = ended(url, alice, job);
        assertEquals("done", status.get("state").asText(), status.toString());
        HttpResponse<byte[]> result = ServedModel.HTTP.send(
                HttpRequest.newBuilder(java.net.URI.create(url + "/v1/jobs/" + job + "/result"))
                        .header("Authorization", "Bearer " + alice)
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, result.statusCode());
        Path file = Files.write(dir.resolve(model + ".result.ct"), result.body());
        return served.decrypt(file);
    }

    @Test
    void anUploadedEncryptedModelAnswersAsTheModelInTheClearAndOnlyForItsTenant() throws Exception {
        Path store = dir.resolve("store");
        String keySet = PolyHeServer.keySetId(served.keys().resolve("server"));
        String keySet2 = PolyHeServer.keySetId(keys2.resolve("server"));
        try (PolyHeServer s = start(store, 4)) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(201, uploadKeys(url, alice, served.keys()).statusCode());
            assertEquals(201, uploadKeys(url, alice, keys2).statusCode());

            var up = uploadModel(url, alice, keySet, zip(encrypted, ModelStore.FILES, Map.of()));
            assertEquals(201, up.statusCode(), up.body());
            String id = JSON.readTree(up.body()).get("model").asText();
            assertEquals(KeyStore.contentId(encrypted, ModelStore.FILES), id, "the id a client works out");
            var again = uploadModel(url, alice, keySet, zip(encrypted, ModelStore.FILES, Map.of()));
            assertEquals(200, again.statusCode(), "stored once: " + again.body());
            error(uploadModel(url, alice, keySet2, zip(encrypted, ModelStore.FILES, Map.of())), 409);
            JsonNode listed = JSON.readTree(get(url + "/v1/models", alice).body());
            assertEquals(
                    List.of(id), List.of(listed.get("encrypted_models").get(0).asText()));
            JsonNode described =
                    JSON.readTree(get(url + "/v1/models/" + id, alice).body());
            assertTrue(described.get("encrypted_weights").asBoolean(), described.toString());
            assertEquals(
                    200, get(url + "/v1/models/" + id + "/calibration", alice).statusCode());

            // the answer of the model in the clear, and of the plaintext polynomial model
            PrivateInference.Prediction ciphertextWeights = answer(url, id, keySet);
            PrivateInference.Prediction clearWeights = answer(url, "tiny", keySet);
            PrivateInference.Prediction poly;
            try (PolyHe p = PolyHe.builder().build()) {
                PrivateInference client = p.privateInference(served.model(), "ckks-cpu");
                poly = client.plaintextPolynomial(
                        client.readInputs(dir.resolve("in.json")).get(0), Calibration.ofServedModel(served.model()));
            }
            var vsPoly = ciphertextWeights.agreementWith(poly);
            assertTrue(vsPoly.mse() <= 1e-4 && vsPoly.maxAbs() <= 0.01 && vsPoly.samePrediction(), vsPoly.toString());
            var vsClear = ciphertextWeights.agreementWith(clearWeights);
            assertTrue(vsClear.maxAbs() <= 0.01 && vsClear.samePrediction(), vsClear.toString());
            assertTrue(maxAbs(ciphertextWeights.lastHiddenState(), clearWeights.lastHiddenState()) <= 0.01);

            // another tenant: the model is not there for it, as one never uploaded
            String missing = error(get(url + "/v1/models/" + "0".repeat(64), bob), 404)
                    .get("error")
                    .asText();
            assertEquals(
                    missing.replace("0".repeat(64), id),
                    error(get(url + "/v1/models/" + id, bob), 404).get("error").asText());
            assertEquals(
                    0,
                    JSON.readTree(get(url + "/v1/models", bob).body())
                            .get("encrypted_models")
                            .size());
            assertEquals(201, uploadKeys(url, bob, served.keys()).statusCode(), "bob stores the same key set");
            error(submit(url, bob, id, keySet, dir.resolve("q.ct")), 404);
            error(send(url + "/v1/models/" + id, bob, HttpRequest.newBuilder().DELETE()), 404);

            // a query under another key set of the tenant: refused before it is read
            String other = error(submit(url, alice, id, keySet2, dir.resolve("q2.ct")), 409)
                    .get("error")
                    .asText();
            assertTrue(other.contains("another key set"), other);
            // the key set it runs with stays while the model does
            error(
                    send(
                            url + "/v1/keys/" + keySet,
                            alice,
                            HttpRequest.newBuilder().DELETE()),
                    409);

            var deleted = send(
                    url + "/v1/models/" + id, alice, HttpRequest.newBuilder().DELETE());
            assertEquals(200, deleted.statusCode(), deleted.body());
            error(get(url + "/v1/models/" + id, alice), 404);
            error(submit(url, alice, id, keySet, dir.resolve("q.ct")), 404);
            assertFalse(Files.exists(store.resolve("models").resolve(id)), "the files are gone");
            assertEquals(
                    200,
                    send(
                                    url + "/v1/keys/" + keySet,
                                    alice,
                                    HttpRequest.newBuilder().DELETE())
                            .statusCode());
        }
    }

    @Test
    void badUploadsAreRefusedClearlyAndLeaveNothing() throws Exception {
        Path store = dir.resolve("bad-store");
        String keySet = PolyHeServer.keySetId(served.keys().resolve("server"));
        try (PolyHeServer s = start(store, 4)) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(201, uploadKeys(url, alice, served.keys()).statusCode());
            List<String> before = tree(store);
            Map<String, Map<String, UnaryOperator<byte[]>>> changes = new HashMap<>();
            Map<String, Integer> statuses = new HashMap<>();
            Map<String, String> says = new HashMap<>();

            changes.put("truncated", Map.of("parameters.ct", b -> java.util.Arrays.copyOf(b, b.length / 2)));
            statuses.put("truncated", 400);
            says.put("truncated", "truncated");

            changes.put("altered", Map.of("parameters.ct", b -> {
                byte[] c = b.clone();
                c[c.length / 2] ^= 0x10;
                return c;
            }));
            statuses.put("altered", 400);
            says.put("altered", "parameters.ct");

            changes.put(
                    "site shape",
                    Map.of(
                            "encrypted-model.json",
                            b -> manifest(b, sites -> {
                                ObjectNode first = (ObjectNode) sites.elements().next();
                                first.put("rows", first.get("rows").asInt() + 1);
                            })));
            statuses.put("site shape", 400);
            says.put("site shape", "does not match config.json");

            changes.put(
                    "site missing",
                    Map.of(
                            "encrypted-model.json",
                            b -> manifest(b, sites -> {
                                sites.remove(sites.fieldNames().next());
                            })));
            statuses.put("site missing", 400);
            says.put("site missing", "does not match config.json");

            changes.put(
                    "config",
                    Map.of(
                            "config.json",
                            b -> new String(b, StandardCharsets.UTF_8)
                                    .replaceFirst("\"num_hidden_layers\" *: *\\d+", "\"num_hidden_layers\": 7")
                                    .getBytes(StandardCharsets.UTF_8)));
            statuses.put("config", 400);
            says.put("config", "refused");

            for (String what : changes.keySet()) {
                var r = uploadModel(url, alice, keySet, zip(encrypted, ModelStore.FILES, changes.get(what)));
                String error = error(r, statuses.get(what)).get("error").asText();
                assertTrue(error.contains(says.get(what)), what + ": " + error);
                assertFalse(error.contains(store.toString()), "no server path: " + error);
                assertEquals(before, tree(store), what + " left nothing");
            }

            // under another key set than the one named
            String other = error(uploadModel(url, alice, keySet, zip(foreign, ModelStore.FILES, Map.of())), 409)
                    .get("error")
                    .asText();
            assertTrue(other.contains("key set"), other);
            // an entry too many, one missing, a key set not the tenant's
            List<String> more = new java.util.ArrayList<>(ModelStore.FILES);
            Files.writeString(dir.resolve("extra.txt"), "x");
            error(uploadModel(url, alice, keySet, zip(encrypted, ModelStore.FILES.subList(0, 4), Map.of())), 400);
            more.add("../extra.txt");
            error(uploadModel(url, alice, keySet, zip(encrypted, more, Map.of())), 400);
            error(uploadModel(url, bob, keySet, zip(encrypted, ModelStore.FILES, Map.of())), 404);
            assertEquals(before, tree(store), "nothing kept");
        }
        // a server that keeps no encrypted models answers before reading the upload
        try (PolyHeServer s = start(dir.resolve("no-models"), 0)) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(201, uploadKeys(url, alice, served.keys()).statusCode());
            String full = error(uploadModel(url, alice, keySet, zip(encrypted, ModelStore.FILES, Map.of())), 507)
                    .get("error")
                    .asText();
            assertTrue(full.contains("--max-models-per-tenant"), full);
        }
    }

    /**
     * The embedding façade on the folder: it evaluates with the key set the model was encrypted under, refuses another,
     * and refuses what needs the weights in the clear.
     */
    @Test
    void theFacadeRunsTheFolderWithItsKeySetOnly() throws Exception {
        try (PolyHe p = PolyHe.builder().threads(1).build()) {
            PrivateInference clear = p.privateInference(served.model(), "ckks-cpu");
            PrivateInference folder = p.privateInference(encrypted, "ckks-cpu");
            assertTrue(folder.encryptedWeights() && !clear.encryptedWeights());
            var input = clear.readInputs(dir.resolve("in.json")).get(0);
            Calibration domains = Calibration.ofServedModel(served.model());
            try (ClientKeys keys = clear.loadClientKeys(served.keys());
                    ClientKeys other = clear.loadClientKeys(keys2)) {
                IllegalStateException needsWeights = org.junit.jupiter.api.Assertions.assertThrows(
                        IllegalStateException.class, () -> folder.encrypt(keys, input));
                assertTrue(needsWeights.getMessage().contains("holds an encrypted model"), needsWeights.getMessage());
                var answer = folder.evaluate(keys.serverKeys(), clear.encrypt(keys, input), domains, e -> {});
                var agreement = folder.decrypt(keys, answer).agreementWith(clear.plaintextPolynomial(input, domains));
                assertTrue(agreement.mse() <= 1e-4 && agreement.samePrediction(), agreement.toString());
                IllegalArgumentException foreignKeys = org.junit.jupiter.api.Assertions.assertThrows(
                        IllegalArgumentException.class,
                        () -> folder.evaluate(other.serverKeys(), clear.encrypt(other, input), domains, e -> {}));
                assertTrue(foreignKeys.getMessage().contains("was encrypted under key set"), foreignKeys.getMessage());
            }
        }
    }

    private static byte[] manifest(byte[] json, java.util.function.Consumer<ObjectNode> sites) {
        try {
            ObjectNode m = (ObjectNode) JSON.readTree(json);
            sites.accept((ObjectNode) m.get("sites"));
            return JSON.writeValueAsBytes(m);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static double maxAbs(Matrix a, Matrix b) {
        double max = 0;
        for (int r = 0; r < a.rows(); r++) {
            for (int c = 0; c < a.cols(); c++) {
                max = Math.max(max, Math.abs(a.get(r, c) - b.get(r, c)));
            }
        }
        return max;
    }

    /** Every file and folder under the store, with each file's size: what a refused upload must leave alone. */
    private static List<String> tree(Path store) throws Exception {
        try (Stream<Path> s = Files.walk(store)) {
            return s.map(p -> store.relativize(p)
                            + (Files.isRegularFile(p) ? " " + p.toFile().length() : "/"))
                    .sorted()
                    .toList();
        }
    }
}
