package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A model whose weights are ciphertexts (the paper's App. H) as its owner and a server run it: {@code keys generate},
 * {@code encrypt-model}, {@code encrypt}, then {@code eval} of the encrypted folder with the server's half of the keys
 * (the calibration the folder carries), {@code decrypt}. The answer is the plaintext polynomial model's; the folder
 * holds none of the checkpoint's values; every other way in says why not.
 */
class EncryptedModelTest {
    @TempDir
    static Path dir;

    static dev.polyhe.core.PolyHe polyhe;
    /** A server the tests' owners upload their encrypted models to (it serves a model in the clear too). */
    static dev.polyhe.server.PolyHeServer server;

    static String url;

    @BeforeAll
    static void start() throws Exception {
        polyhe = dev.polyhe.core.PolyHe.builder().threads(1).build();
        server = dev.polyhe.server.PolyHeServer.start(
                polyhe,
                new dev.polyhe.server.PolyHeServer.Settings(
                        0,
                        List.of(ServedModel.shared().model()),
                        dir.resolve("store"),
                        1,
                        4,
                        1L << 30,
                        1L << 30,
                        64L << 20,
                        true,
                        0));
        url = "http://127.0.0.1:" + server.port();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        polyhe.close();
    }

    /**
     * The three families on the small bootstrapping ring, each against its plaintext polynomial model, by {@code eval}
     * of the encrypted folder and through {@code serve} ({@code remote keys upload}, {@code remote models upload},
     * {@code remote infer --model ID}); the tiny Pythia's also against the same query with its weights in the clear.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"tiny-pythia, 8", "tiny-roberta, 8", "tiny-vit, 17"})
    void anEncryptedModelAnswersAsThePlaintextPolynomialModel(String name, int maxTokens) throws Exception {
        Owned owned = Owned.make(dir.resolve(name), Path.of("../models", name), maxTokens);
        // the first sample alone: what encrypt takes, and remote infer sends
        Path input = firstSample(owned.model().resolve("input.json"), owned.at().resolve("one.json"));
        Path poly = owned.at().resolve("poly.json");
        var inf = polyhe(
                "infer",
                "--engine",
                "poly",
                "--model",
                owned.model().toString(),
                "--input",
                input.toString(),
                "--calibration",
                owned.calibration().toString(),
                "--output",
                poly.toString());
        assertEquals(0, inf.code(), inf.err());
        Path in = owned.commands().encrypt(input, owned.at().resolve("in.ct"));
        Path out = owned.at().resolve("out.ct");
        var eval = polyhe(
                "eval",
                "--insecure-test",
                "--model",
                owned.encrypted().toString(),
                "--keys",
                owned.commands().keys().resolve("server").toString(),
                "--input",
                in.toString(),
                "--output",
                out.toString());
        assertEquals(0, eval.code(), eval.err());
        Path answer = owned.commands().decrypt(out, owned.at().resolve("answer.json"));
        ObjectMapper json = new ObjectMapper();
        double[] want = flat(json.readTree(poly.toFile()).get("logits").get(0));
        JsonNode shape = json.readTree(answer.toFile()).get("logits_shape");
        int width = shape.get(shape.size() - 1).asInt();
        double[] viaEval = flat(json.readTree(answer.toFile()).get("logits"));
        assertAgree(want, viaEval, width, name + " by eval vs the polynomial model");

        // the same model uploaded by its owner to a server, queried by id (a fresh encryption of the same input)
        String keys = owned.commands().keys().toString();
        var upKeys = polyhe("remote", "keys", "upload", "--server", url, "--keys", keys);
        assertEquals(0, upKeys.code(), upKeys.err());
        var up = polyhe(
                "remote",
                "models",
                "upload",
                "--server",
                url,
                "--model",
                owned.encrypted().toString(),
                "--keys",
                keys);
        assertEquals(0, up.code(), up.err());
        String id = up.out().split(" ")[1];
        Path served = owned.at().resolve("served.json");
        var remote = polyhe(
                "remote",
                "infer",
                "--server",
                url,
                "--model",
                id,
                "--checkpoint",
                owned.model().toString(),
                "--keys",
                keys,
                "--input",
                input.toString(),
                "--output",
                served.toString());
        assertEquals(0, remote.code(), remote.err());
        double[] viaServer = flat(json.readTree(served.toFile()).get("logits"));
        assertAgree(want, viaServer, width, name + " through serve vs the polynomial model");
        assertAgree(viaEval, viaServer, width, name + " through serve vs eval");

        if (name.equals("tiny-pythia")) {
            // and the plaintext-weight path on the same ciphertext (one family holds the two paths together)
            owned.commands().eval(in, owned.at().resolve("clear.ct"));
            Path clear = owned.commands()
                    .decrypt(owned.at().resolve("clear.ct"), owned.at().resolve("clear.json"));
            assertAgree(flat(json.readTree(clear.toFile()).get("logits")), viaEval, width, name + " vs clear weights");
        }
    }

    /** MSE ≤ 1e-4, max ≤ 0.01 and the same prediction in every row of {@code width} logits. */
    private static void assertAgree(double[] want, double[] got, int width, String what) {
        assertEquals(want.length, got.length, what);
        double se = 0;
        double max = 0;
        for (int i = 0; i < want.length; i++) {
            double d = got[i] - want[i];
            se += d * d;
            max = Math.max(max, Math.abs(d));
        }
        String figures = String.format(Locale.ROOT, "%s: mse %.2e, max %.2e", what, se / want.length, max);
        assertTrue(se / want.length <= 1e-4 && max <= 0.01, figures);
        for (int row = 0; row < want.length / width; row++) {
            assertEquals(argmax(want, row, width), argmax(got, row, width), figures + ": the prediction of row " + row);
        }
    }

    /** The first sample of an input file (each array field's first element), written to {@code out}. */
    private static Path firstSample(Path input, Path out) throws IOException {
        ObjectMapper json = new ObjectMapper();
        var all = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(input.toFile());
        var one = json.createObjectNode();
        all.fields().forEachRemaining(e -> {
            if (e.getValue().isArray()) {
                one.set(e.getKey(), json.createArrayNode().add(e.getValue().get(0)));
            } else {
                one.set(e.getKey(), e.getValue());
            }
        });
        json.writeValue(out.toFile(), one);
        return out;
    }

    /**
     * What the server is given holds none of the checkpoint's values: no two side-by-side weights as four-byte floats
     * (a tensor copied) or as doubles, at any byte of any file of the folder. (A single value is no evidence: a
     * float widened to a double ends in 29 zero bits, and limbs of 40-bit primes end their words in 24.)
     */
    @Test
    void theEncryptedFolderHoldsNoWeight() throws IOException {
        Owned owned = Owned.make(dir.resolve("scan"), Path.of("../models/tiny-pythia"), 8);
        Map<Long, Long> floats = new HashMap<>();
        Map<Long, Long> doubles = new HashMap<>();
        weightPairs(owned.model().resolve("model.safetensors"), floats, doubles);
        assertTrue(floats.size() > 10_000, "pairs: " + floats.size());
        try (var files = Files.list(owned.encrypted())) {
            for (Path f : (Iterable<Path>) files::iterator) {
                ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(f)).order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i + 8 <= b.limit(); i++) {
                    long v = b.getLong(i);
                    if (floats.containsKey(v)) {
                        throw new AssertionError(f.getFileName() + " holds two checkpoint floats at byte " + i);
                    }
                    Long next = doubles.get(v);
                    if (next != null && i + 16 <= b.limit() && b.getLong(i + 8) == next) {
                        throw new AssertionError(f.getFileName() + " holds two checkpoint doubles at byte " + i);
                    }
                }
            }
        }
    }

    /** Another key set, a truncated parameter file and the commands that need weights in the clear: refused. */
    @Test
    void badUsesAreRefusedClearly() throws IOException {
        Owned owned = Owned.make(dir.resolve("bad"), Path.of("../models/tiny-pythia"), 8);
        Path in = owned.commands()
                .encrypt(owned.model().resolve("input.json"), owned.at().resolve("in.ct"));

        var infer = polyhe(
                "infer",
                "--model",
                owned.encrypted().toString(),
                "--input",
                owned.model().resolve("input.json").toString());
        assertNotEquals(0, infer.code());
        assertTrue(infer.err().contains("holds an encrypted model"), infer.err());

        DeployedCommands other = DeployedCommands.generateKeys(
                owned.model(),
                owned.calibration(),
                "insecure-test-boot-dense-N10",
                8,
                owned.at().resolve("keys2"));
        var foreign = eval(
                owned.encrypted(),
                other.keys(),
                other.encrypt(owned.model().resolve("input.json"), owned.at().resolve("in2.ct")));
        assertNotEquals(0, foreign.code());
        assertTrue(foreign.err().contains("was encrypted under key set"), foreign.err());

        Path truncated = Files.createDirectories(owned.at().resolve("truncated"));
        try (var files = Files.list(owned.encrypted())) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, truncated.resolve(f.getFileName()));
            }
        }
        Path parameters = truncated.resolve("parameters.ct");
        byte[] all = Files.readAllBytes(parameters);
        Files.write(parameters, java.util.Arrays.copyOf(all, all.length / 2));
        var cut = eval(truncated, owned.commands().keys(), in);
        assertNotEquals(0, cut.code());
        assertTrue(cut.err().contains("truncated"), cut.err());

        var noBlocks = polyhe(
                "keys",
                "generate",
                "--preset",
                "insecure-test-N10",
                "--max-tokens",
                "8",
                "--out",
                owned.at().resolve("columns").toString());
        assertEquals(0, noBlocks.code(), noBlocks.err());
        var columns = polyhe(
                "encrypt-model",
                "--model",
                owned.model().toString(),
                "--keys",
                owned.at().resolve("columns").toString(),
                "--calibration",
                owned.calibration().toString(),
                "--out",
                owned.at().resolve("never").toString());
        assertNotEquals(0, columns.code());
        assertTrue(columns.err().contains("--max-columns"), columns.err());
        assertTrue(!Files.exists(owned.at().resolve("never").resolve("encrypted-model.json")));
    }

    private static LauncherTest.Run eval(Path model, Path keys, Path in) {
        return polyhe(
                "eval",
                "--insecure-test",
                "--model",
                model.toString(),
                "--keys",
                keys.resolve("server").toString(),
                "--input",
                in.toString(),
                "--output",
                in.resolveSibling("never.ct").toString());
    }

    /** A model calibrated, keys made for it, and its weights encrypted under them, in {@code at}. */
    record Owned(Path at, Path model, Path calibration, DeployedCommands commands, Path encrypted) {
        static Owned make(Path at, Path model, int maxTokens) throws IOException {
            Files.createDirectories(at);
            Path calibration = at.resolve("cal.json");
            var cal = polyhe(
                    "calibrate",
                    "--model",
                    model.toString(),
                    "--input",
                    model.resolve("input.json").toString(),
                    "--output",
                    calibration.toString());
            assertEquals(0, cal.code(), cal.err());
            DeployedCommands commands = DeployedCommands.generateKeys(
                    model, calibration, "insecure-test-boot-dense-N10", maxTokens, at.resolve("keys"));
            Path encrypted = at.resolve("encrypted");
            var enc = polyhe(
                    "encrypt-model",
                    "--model",
                    model.toString(),
                    "--keys",
                    commands.keys().toString(),
                    "--calibration",
                    calibration.toString(),
                    "--out",
                    encrypted.toString());
            assertEquals(0, enc.code(), enc.err());
            assertTrue(enc.out().contains("parameter sites"), enc.out());
            return new Owned(at, model, calibration, commands, encrypted);
        }
    }

    /**
     * Each pair of side-by-side nonzero F32 values of the checkpoint's data, as the eight bytes they make
     * ({@code floats}), and as two doubles: the first's bits to the second's ({@code doubles}).
     */
    private static void weightPairs(Path safetensors, Map<Long, Long> floats, Map<Long, Long> doubles)
            throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(safetensors)).order(ByteOrder.LITTLE_ENDIAN);
        long header = b.getLong(0);
        JsonNode h = new ObjectMapper().readTree(new String(b.array(), 8, (int) header, StandardCharsets.UTF_8));
        int data = 8 + (int) header;
        for (var it = h.fields(); it.hasNext(); ) {
            var e = it.next();
            if (!"F32".equals(e.getValue().path("dtype").asText())) {
                continue;
            }
            int from = data + e.getValue().get("data_offsets").get(0).asInt();
            int to = data + e.getValue().get("data_offsets").get(1).asInt();
            for (int i = from; i + 8 <= to; i += 4) {
                float first = b.getFloat(i);
                float second = b.getFloat(i + 4);
                if (first != 0 && second != 0) {
                    floats.put(b.getLong(i), 0L);
                    doubles.put(Double.doubleToLongBits(first), Double.doubleToLongBits(second));
                }
            }
        }
    }

    private static double[] flat(JsonNode n) {
        java.util.List<Double> out = new java.util.ArrayList<>();
        flatten(n, out);
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static void flatten(JsonNode n, java.util.List<Double> out) {
        if (n.isArray()) {
            n.forEach(c -> flatten(c, out));
        } else {
            out.add(n.asDouble());
        }
    }

    private static int argmax(double[] v, int row, int width) {
        int best = 0;
        for (int i = 1; i < width; i++) {
            if (v[row * width + i] > v[row * width + best]) {
                best = i;
            }
        }
        return best;
    }
}
