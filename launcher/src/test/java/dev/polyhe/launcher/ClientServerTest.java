package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.core.bench.RandomCheckpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client/server split through the command line, exchanging files only: keys generate, encrypt, eval (with a
 * key folder that has no secret key at all), decrypt; the decrypted logits match the plaintext polynomial model.
 * A one-layer model and light approximations keep the circuit shallow enough for a small insecure ring.
 */
class ClientServerTest {
    @TempDir
    static Path dir;

    static Path model;
    static Path config;
    static Path input;
    static Path calibration;
    static Path keys;
    static Path serverKeys;
    static JsonNode poly;
    static int depth;
    /** What {@link #columns()} made: the answer of the four commands on {@link #keys}, once per class. */
    private static Path columnsAnswer;

    @BeforeAll
    static void prepare() throws Exception {
        model = RandomCheckpoint.write(dir.resolve("model"), RandomCheckpoint.shape("tiny"), 3);
        input = dir.resolve("input.json");
        Files.writeString(input, "{\"input_ids\": [[1, 5, 9, 3, 12, 7]]}");
        config = dir.resolve("light.yaml");
        Files.writeString(config, """
                inference:
                  attention: {name: power-softmax-length-agnostic}
                  inv-sqrt: {name: goldschmidt-inv-sqrt, options: {iterations: 5}}
                  gelu: {name: gelu-sigmoid, options: {degree: 7}}
                  attention-division: {division: goldschmidt, iterations: 9}
                """);
        calibration = dir.resolve("cal.json");
        var cal = polyhe(
                "calibrate",
                "--model",
                model.toString(),
                "--input",
                input.toString(),
                "--config",
                config.toString(),
                "--output",
                calibration.toString());
        assertEquals(0, cal.code(), cal.err());
        Path polyOut = dir.resolve("poly.json");
        var inf = polyhe(
                "infer",
                "--engine",
                "poly",
                "--model",
                model.toString(),
                "--input",
                input.toString(),
                "--config",
                config.toString(),
                "--calibration",
                calibration.toString(),
                "--output",
                polyOut.toString());
        assertEquals(0, inf.code(), inf.err());
        Matcher m = Pattern.compile("depth (\\d+)").matcher(inf.out());
        assertTrue(m.find(), inf.out());
        depth = Integer.parseInt(m.group(1));
        poly = new ObjectMapper().readTree(polyOut.toFile());
        keys = dir.resolve("keys");
        var gen = polyhe(
                "keys",
                "generate",
                "--logN",
                "10",
                "--levels",
                Integer.toString(depth + 1),
                "--insecure-test",
                "--max-tokens",
                "8",
                "--out",
                keys.toString());
        assertEquals(0, gen.code(), gen.err());
        // The server's copy: the server half, copied elsewhere as it would be uploaded.
        serverKeys = Files.createDirectories(dir.resolve("server-keys"));
        for (String f : new String[] {"parameters.json", "evaluation.keys", "keyset.properties"}) {
            Files.copy(keys.resolve("server").resolve(f), serverKeys.resolve(f));
        }
    }

    @Test
    void fourCommandsExchangeFilesAndMatchThePolynomialModel() throws Exception {
        columns();
    }

    /**
     * The four commands on {@link #keys} ({@link #fourCommands}, every check included), run by the first test that
     * needs their answer; the flooded decryption reads the same answer rather than evaluating the query again.
     */
    private static synchronized Path columns() throws Exception {
        if (columnsAnswer == null) {
            columnsAnswer = fourCommands(keys, serverKeys, "columns");
        }
        return columnsAnswer;
    }

    @Test
    void fourCommandsWithColumnBlocks() throws Exception {
        Path blockKeys = dir.resolve("block-keys");
        var gen = polyhe(
                "keys",
                "generate",
                "--logN",
                "10",
                "--levels",
                Integer.toString(depth + (depth + 3) / 4 + 3),
                "--insecure-test",
                "--max-tokens",
                "8",
                "--max-columns",
                "32",
                "--out",
                blockKeys.toString());
        assertEquals(0, gen.code(), gen.err());
        assertTrue(gen.out().contains("x 32 columns per ciphertext"), gen.out());
        // the server half in place: KEYS/server is what the server is given
        fourCommands(blockKeys, blockKeys.resolve("server"), "blocks");
    }

    /**
     * The backend is the server's choice: a key set names the data format every CKKS backend reads, and eval's
     * --backend (or the config's inference.backend) takes it. Without a GPU, ckks-cuda then says why it cannot run,
     * not that the keys are the wrong ones; an unknown name is refused with the known ones.
     */
    @Test
    void theServerChoosesTheBackend() throws Exception {
        assertTrue(
                Files.readString(keys.resolve("server").resolve("keyset.properties"))
                        .contains("data-format=polyhe-rns-ckks"),
                "the key set records its data format");
        Path ct = dir.resolve("backend-input.ct");
        var enc = polyhe(
                "encrypt",
                "--model",
                model.toString(),
                "--keys",
                keys.toString(),
                "--input",
                input.toString(),
                "--config",
                config.toString(),
                "--output",
                ct.toString());
        assertEquals(0, enc.code(), enc.err());
        String[] eval = {
            "eval",
            "--insecure-test",
            "--model",
            model.toString(),
            "--keys",
            serverKeys.toString(),
            "--calibration",
            calibration.toString(),
            "--config",
            config.toString(),
            "--input",
            ct.toString(),
            "--output",
            dir.resolve("backend-output.ct").toString()
        };
        var cuda = polyhe(concat(eval, "--backend", "ckks-cuda"));
        assertFalse(cuda.err().contains("key folder was made for"), "ckks-cpu's keys serve ckks-cuda: " + cuda.err());
        if (cuda.code() != 0) {
            assertTrue(cuda.err().contains("ckks-cuda") && cuda.err().contains("not available"), cuda.err());
        }
        var unknown = polyhe(concat(eval, "--backend", "no-such-backend"));
        assertEquals(2, unknown.code(), unknown.err());
        assertTrue(unknown.err().contains("no-such-backend") && unknown.err().contains("ckks-cpu"), unknown.err());
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /** encrypt (client), eval (server: no secret key), decrypt (client), against the polynomial model. */
    private static Path fourCommands(Path keys, Path serverKeys, String tag) throws Exception {
        Path ct = dir.resolve(tag + "-input.ct");
        var enc = polyhe(
                "encrypt",
                "--model",
                model.toString(),
                "--keys",
                keys.toString(),
                "--input",
                input.toString(),
                "--config",
                config.toString(),
                "--output",
                ct.toString());
        assertEquals(0, enc.code(), enc.err());
        Path out = dir.resolve(tag + "-output.ct");
        Path chart = dir.resolve(tag + (tag.equals("blocks") ? "-breakdown.png" : "-breakdown.svg"));
        var eval = polyhe(
                "eval",
                "--insecure-test",
                "--model",
                model.toString(),
                "--keys",
                serverKeys.toString(),
                "--calibration",
                calibration.toString(),
                "--config",
                config.toString(),
                "--input",
                ct.toString(),
                "--output",
                out.toString(),
                "--chart",
                chart.toString(),
                "--report",
                dir.resolve(tag + "-breakdown.json").toString());
        assertEquals(0, eval.code(), eval.err());
        assertTrue(
                eval.err().contains("eval: block 1/1 done") && eval.err().contains("[1/1]"),
                "progress on stderr: " + eval.err());
        JsonNode breakdown =
                new ObjectMapper().readTree(dir.resolve(tag + "-breakdown.json").toFile());
        assertTrue(
                breakdown.get("total_seconds").asDouble() > 0
                        && breakdown.get("by_operator").size() > 3,
                "the breakdown as JSON: " + breakdown);
        assertTrue(eval.out().contains("ciphertext matmul") && eval.out().contains("LayerNorm"), eval.out());
        for (String kind :
                new String[] {"plaintext matmul", "ciphertext matmul", "LayerNorm", "GELU", "attention normalisation"
                }) {
            String line = eval.out()
                    .lines()
                    .filter(l -> l.strip().startsWith(kind + " "))
                    .findFirst()
                    .orElseThrow();
            assertTrue(
                    Double.parseDouble(
                                    line.strip().substring(kind.length()).trim().split("\\s+")[0])
                            > 0,
                    "time is attributed to " + kind + ": " + line);
        }
        byte[] image = Files.readAllBytes(chart);
        if (chart.toString().endsWith(".png")) {
            assertTrue(image.length > 1000 && image[1] == 'P' && image[2] == 'N' && image[3] == 'G', "a PNG chart");
        } else {
            assertTrue(new String(image, java.nio.charset.StandardCharsets.UTF_8).startsWith("<svg"), "an SVG chart");
        }
        Path decrypted = dir.resolve(tag + "-decrypted.json");
        var dec = polyhe(
                "decrypt", "--keys", keys.toString(), "--input", out.toString(), "--output", decrypted.toString());
        assertEquals(0, dec.code(), dec.err());
        JsonNode result = new ObjectMapper().readTree(decrypted.toFile());
        assertEquals(poly.get("logits_shape"), result.get("logits_shape"));
        JsonNode a = result.get("logits").get(0);
        JsonNode b = poly.get("logits").get(0);
        double se = 0;
        int n = 0;
        for (int t = 0; t < a.size(); t++) {
            int argA = 0;
            int argB = 0;
            for (int v = 0; v < a.get(t).size(); v++) {
                double d = a.get(t).get(v).asDouble() - b.get(t).get(v).asDouble();
                se += d * d;
                n++;
                argA = a.get(t).get(v).asDouble() > a.get(t).get(argA).asDouble() ? v : argA;
                argB = b.get(t).get(v).asDouble() > b.get(t).get(argB).asDouble() ? v : argB;
            }
            assertEquals(argB, argA, "same predicted token at position " + t);
        }
        assertTrue(se / n < 1e-4, "MSE encrypted vs plaintext polynomial model: " + se / n);
        return out;
    }

    /**
     * decrypt --flood-bits: the error estimate (imaginary parts) tracks the real error against the polynomial
     * model, and the flooded values differ from the plain decryption by Gaussian noise of the reported sigma.
     */
    @Test
    void floodedDecryptionAddsNoiseOfTheDocumentedWidth() throws Exception {
        Path out = columns();
        Path plain = dir.resolve("flood-plain.json");
        assertEquals(
                0,
                polyhe("decrypt", "--keys", keys.toString(), "--input", out.toString(), "--output", plain.toString())
                        .code());
        Path flooded = dir.resolve("flood-flooded.json");
        var dec = polyhe(
                "decrypt",
                "--keys",
                keys.toString(),
                "--input",
                out.toString(),
                "--output",
                flooded.toString(),
                "--flood-bits",
                "30",
                "--flood-queries",
                "4");
        assertEquals(0, dec.code(), dec.err());
        assertTrue(dec.out().contains("noise flooding (s = 30 bits, 4 queries)"), dec.out());
        JsonNode p = new ObjectMapper().readTree(plain.toFile());
        JsonNode f = new ObjectMapper().readTree(flooded.toFile());
        assertFalse(p.has("noise_flooding"), "off by default");
        JsonNode logits = f.get("noise_flooding").get("logits");
        double t = logits.get("error_estimate").asDouble();
        double sigma = logits.get("sigma").asDouble();
        assertEquals(Math.getExponent(t), Math.log(t) / Math.log(2), 1e-12, "t is a power of two");
        assertEquals(Math.sqrt(12 * 4) * Math.pow(2, 15) * t, sigma, sigma * 1e-12);
        double errorSq = 0;
        double noiseSq = 0;
        int n = 0;
        for (int r = 0; r < p.get("logits").get(0).size(); r++) {
            for (int v = 0; v < p.get("logits").get(0).get(r).size(); v++) {
                double plainValue = p.get("logits").get(0).get(r).get(v).asDouble();
                double e = plainValue - poly.get("logits").get(0).get(r).get(v).asDouble();
                double z = f.get("logits").get(0).get(r).get(v).asDouble() - plainValue;
                errorSq += e * e;
                noiseSq += z * z;
                n++;
            }
        }
        double rmsError = Math.sqrt(errorSq / n);
        double rmsNoise = Math.sqrt(noiseSq / n);
        // t is the rms of the logits' imaginary parts rounded up to a power of two; the real parts' error differs
        // from it by a small factor either way at random keys (0.46 to 1.99 of t in six runs, 2026-12-04; while t
        // still read every slot, padding included, a CI run saw 3.4)
        assertTrue(rmsError < 4 * t && rmsError > t / 16, "estimate t = " + t + " vs the real error " + rmsError);
        assertTrue(Math.abs(rmsNoise / sigma - 1) < 0.25, n + " values: noise rms " + rmsNoise + " vs sigma " + sigma);
    }

    @Test
    void floodOptionsThatCannotApplyAreRefused() {
        var r = polyhe(
                "decrypt", "--keys", keys.toString(), "--input", "x.ct", "--output", "y.json", "--flood-queries", "8");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--flood-queries applies only with --flood-bits"), r.err());
        var big = polyhe(
                "decrypt", "--keys", keys.toString(), "--input", "x.ct", "--output", "y.json", "--flood-bits", "300");
        assertEquals(2, big.code(), big.err());
        assertTrue(big.err().contains("0 (off) to 128 bits, got 300"), big.err());
    }

    @Test
    void keysSizedForAModelTakeItsWidestActivation() {
        Path sized = dir.resolve("sized-keys");
        var gen = polyhe(
                "keys",
                "generate",
                "--model",
                model.toString(),
                "--logN",
                "10",
                "--levels",
                "2",
                "--insecure-test",
                "--max-tokens",
                "4",
                "--out",
                sized.toString());
        assertEquals(0, gen.code(), gen.err());
        assertTrue(gen.err().contains("up to 4 tokens, 16 columns"), "the tiny shape's FFN is 16: " + gen.err());
        assertTrue(gen.out().contains("x 16 columns per ciphertext"), gen.out());
        assertTrue(gen.out().contains(sized.resolve("server") + " (nothing secret in it)"), gen.out());
    }

    @Test
    void theSecretKeyIsOwnerOnlyAndTheServerHalfHasNone() throws Exception {
        assertEquals(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"),
                Files.getPosixFilePermissions(keys.resolve("client/secret.key")));
        assertEquals(
                java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"),
                Files.getPosixFilePermissions(keys.resolve("client")));
        try (var server = Files.list(keys.resolve("server"))) {
            assertEquals(
                    java.util.Set.of("parameters.json", "evaluation.keys", "keyset.properties"),
                    server.map(f -> f.getFileName().toString()).collect(java.util.stream.Collectors.toSet()));
        }
        assertFalse(Files.exists(keys.resolve("secret.key")), "nothing secret outside client/");
    }

    @Test
    void inferWithTheEncryptedEngineReportsItsErrorAgainstBothPlaintextModels() throws Exception {
        Path out = dir.resolve("ckks.json");
        var r = polyhe(
                "infer",
                "--engine",
                "ckks",
                "--model",
                model.toString(),
                "--input",
                input.toString(),
                "--config",
                config.toString(),
                "--calibration",
                calibration.toString(),
                "--logN",
                "10",
                "--insecure-test",
                "--output",
                out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(
                r.err().contains("ckks sample 0: block 1/1 done") && r.err().contains("bootstraps"),
                "progress on stderr as blocks complete: " + r.err());
        assertFalse(r.out().contains("block 1/1 done"), "results alone on stdout: " + r.out());
        JsonNode json = new ObjectMapper().readTree(out.toFile());
        assertEquals(poly.get("logits_shape"), json.get("logits_shape"));
        assertTrue(
                json.get("error_vs_poly").get("mse").asDouble() < 1e-4,
                json.get("error_vs_poly").toString());
        assertTrue(
                json.get("error_vs_poly").get("same_prediction").asBoolean(),
                json.get("error_vs_poly").toString());
        assertTrue(json.get("error_vs_exact").has("max_abs"), json.toString());
    }

    @Test
    void theServerCannotDecryptAndForeignOrCorruptedFilesAreRefused() throws Exception {
        Path ct = dir.resolve("refuse.ct");
        assertEquals(
                0,
                polyhe(
                                "encrypt",
                                "--model",
                                model.toString(),
                                "--keys",
                                keys.toString(),
                                "--input",
                                input.toString(),
                                "--config",
                                config.toString(),
                                "--output",
                                ct.toString())
                        .code());
        var noSecret = polyhe(
                "decrypt",
                "--keys",
                serverKeys.toString(),
                "--input",
                ct.toString(),
                "--output",
                dir.resolve("x.json").toString());
        assertEquals(2, noSecret.code());
        assertTrue(noSecret.err().contains("secret.key"), noSecret.err());

        byte[] bytes = Files.readAllBytes(ct);
        bytes[bytes.length / 2] ^= 0x5a;
        Path corrupted = dir.resolve("corrupted.ct");
        Files.write(corrupted, bytes);
        var bad = polyhe(
                "eval",
                "--insecure-test",
                "--model",
                model.toString(),
                "--keys",
                serverKeys.toString(),
                "--calibration",
                calibration.toString(),
                "--config",
                config.toString(),
                "--input",
                corrupted.toString(),
                "--output",
                dir.resolve("y.ct").toString());
        assertFalse(bad.code() == 0);
        assertEquals(
                1,
                bad.err()
                        .strip()
                        .lines()
                        .filter(l -> !l.startsWith("(run with"))
                        .count(),
                bad.err());

        Path otherKeys = dir.resolve("other-keys");
        assertEquals(
                0,
                polyhe(
                                "keys",
                                "generate",
                                "--logN",
                                "10",
                                "--levels",
                                "3",
                                "--insecure-test",
                                "--max-tokens",
                                "8",
                                "--out",
                                otherKeys.toString())
                        .code());
        var foreign = polyhe(
                "decrypt",
                "--keys",
                otherKeys.toString(),
                "--input",
                ct.toString(),
                "--output",
                dir.resolve("z.json").toString());
        assertFalse(foreign.code() == 0);
        assertTrue(foreign.err().contains("parameter set") || foreign.err().contains("key set"), foreign.err());

        Path badFolder = Files.createDirectories(dir.resolve("bad-packing-keys"));
        for (String f : new String[] {"parameters.json", "evaluation.keys", "keyset.properties"}) {
            Files.copy(serverKeys.resolve(f), badFolder.resolve(f));
        }
        Files.writeString(
                badFolder.resolve("keyset.properties"),
                "columns-per-ciphertext=3\n",
                java.nio.file.StandardOpenOption.APPEND);
        var badPacking = polyhe(
                "eval",
                "--insecure-test",
                "--model",
                model.toString(),
                "--keys",
                badFolder.toString(),
                "--calibration",
                calibration.toString(),
                "--config",
                config.toString(),
                "--input",
                ct.toString(),
                "--output",
                dir.resolve("w.ct").toString());
        assertEquals(2, badPacking.code(), badPacking.err());
        assertTrue(
                badPacking.err().contains("keyset.properties")
                        && badPacking.err().contains("power of two"),
                badPacking.err());

        // eval takes the domains from the config's inference.calibration when --calibration is not given
        Path withCalibration = dir.resolve("with-calibration.yaml");
        Files.writeString(withCalibration, Files.readString(config) + "  calibration: " + calibration + "\n");
        var fromConfig = polyhe(
                "eval",
                "--insecure-test",
                "--model",
                model.toString(),
                "--keys",
                serverKeys.toString(),
                "--config",
                withCalibration.toString(),
                "--input",
                ct.toString(),
                "--output",
                dir.resolve("t.ct").toString());
        assertEquals(0, fromConfig.code(), fromConfig.err());
        var none = polyhe(
                "eval",
                "--insecure-test",
                "--model",
                model.toString(),
                "--keys",
                serverKeys.toString(),
                "--config",
                config.toString(),
                "--input",
                ct.toString(),
                "--output",
                dir.resolve("s.ct").toString());
        assertEquals(2, none.code(), none.err());
        assertTrue(none.err().contains("--calibration"), none.err());

        // the server's policy, not the client's parameters.json, decides whether test parameters are accepted
        var policy = polyhe(
                "eval",
                "--model",
                model.toString(),
                "--keys",
                serverKeys.toString(),
                "--calibration",
                calibration.toString(),
                "--config",
                config.toString(),
                "--input",
                ct.toString(),
                "--output",
                dir.resolve("v.ct").toString());
        assertEquals(2, policy.code(), policy.err());
        assertTrue(policy.err().contains("parameters.json") && policy.err().contains("insecure-test"), policy.err());
        // a key folder made for another backend is an input error naming it
        Path otherBackend = Files.createDirectories(dir.resolve("other-backend-keys"));
        for (String f : new String[] {"parameters.json", "evaluation.keys"}) {
            Files.copy(serverKeys.resolve(f), otherBackend.resolve(f));
        }
        Files.writeString(
                otherBackend.resolve("keyset.properties"),
                Files.readString(serverKeys.resolve("keyset.properties"))
                        .replace("backend=ckks-cpu", "backend=ckks-cuda"));
        var wrongBackend = polyhe(
                "eval",
                "--insecure-test",
                "--model",
                model.toString(),
                "--keys",
                otherBackend.toString(),
                "--calibration",
                calibration.toString(),
                "--config",
                config.toString(),
                "--input",
                ct.toString(),
                "--output",
                dir.resolve("u.ct").toString());
        assertEquals(2, wrongBackend.code(), wrongBackend.err());
        assertTrue(wrongBackend.err().contains("ckks-cuda"), wrongBackend.err());
    }
}
