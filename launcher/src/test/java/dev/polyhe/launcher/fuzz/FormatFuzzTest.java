package dev.polyhe.launcher.fuzz;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.model.CheckpointException;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.bench.RandomCheckpoint;
import dev.polyhe.core.config.ConfigException;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.encrypted.KeySet;
import dev.polyhe.core.engine.encrypted.EncryptedEngine;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.engine.encrypted.EncryptedTensorFormat;
import dev.polyhe.core.inference.InferenceService;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzing of every parser that reads bytes a client, a server or a download controls: the encrypted tensor file
 * (and decrypting what it yields), ckks-cpu's key and ciphertext blobs, a key folder's parameters.json, a checkpoint's
 * safetensors file, config.json and tokenizer.json. Each property starts from a real file and mutates it
 * ({@link Mutations}); whatever comes out, the parser must either accept it or refuse it with one of the errors a
 * user sees as a one-line input error: never an OutOfMemoryError, a NullPointerException, an index out of bounds, a
 * negative array size. CI runs a few hundred inputs per format; more with
 * {@code -Djqwik.tries.default=100000} (docs/security.md has the longer runs' figures).
 */
class FormatFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicLong REFUSED = new AtomicLong();
    private static final AtomicLong ACCEPTED = new AtomicLong();

    static Path dir;
    static PolyHe polyhe;
    static HeBackend backend;
    static KeySet keys;
    static byte[] container;
    static byte[] ciphertext;
    static byte[] evaluationKeys;
    static byte[] secretKey;
    static byte[] parameters;
    static Path keyFolder;
    static String parametersJson;
    static Path model;
    static byte[] safetensors;
    static String config;
    static String tokenizer;

    @BeforeContainer
    static void seeds() throws IOException {
        dir = Files.createTempDirectory("polyhe-fuzz-");
        polyhe = PolyHe.builder().build();
        backend = polyhe.plugins().backend("ckks-cpu");
        model = RandomCheckpoint.write(dir.resolve("model"), RandomCheckpoint.shape("tiny"), 3);
        InferenceService service = polyhe.inference();
        keys = new EncryptedInference(service).generateKeys(backend, backend.preset("insecure-test-N10"), 4, 16, false);
        EncryptedEngine engine = keys.engine();
        EncryptedTensor x = engine.fromPlain(new dev.polyhe.api.Matrix(4, 16, new double[64]));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        EncryptedTensorFormat.write(
                keys.context(),
                keys.backend(),
                keys.packingSlots(),
                Map.of("model_type", "gpt_neox"),
                Map.of("embeddings", x, "logits", engine.rowSums(x)),
                out);
        container = out.toByteArray();
        HeContext ctx = keys.context();
        ciphertext = bytes(o -> ctx.serializer().writeCiphertext(x.ciphertexts()[0], o));
        evaluationKeys = bytes(o -> ctx.serializer().writeEvaluationKeys(keys.evaluationKeys(), o));
        secretKey = bytes(o -> ctx.serializer().writeSecretKey(keys.secretKey(), o));
        parameters = bytes(o -> ctx.serializer().writeParameters(ctx.parameters(), o));
        keyFolder = dir.resolve("keys");
        KeyFiles.write(keys, keyFolder);
        parametersJson = Files.readString(KeyFiles.serverHalf(keyFolder).resolve(KeyFiles.PARAMETERS));
        safetensors = Files.readAllBytes(model.resolve("model.safetensors"));
        config = Files.readString(model.resolve("config.json"));
        tokenizer = tokenizerJson();
    }

    @AfterContainer
    static void cleanUp() throws IOException {
        keys.close();
        polyhe.close();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
        System.out.printf("format fuzzing: %d inputs accepted, %d refused cleanly%n", ACCEPTED.get(), REFUSED.get());
    }

    private interface Writing {
        void to(ByteArrayOutputStream out) throws IOException;
    }

    private static byte[] bytes(Writing w) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        w.to(out);
        return out.toByteArray();
    }

    private interface Parse {
        void run() throws Exception;
    }

    /** Runs a parse: acceptance and a clean refusal pass; anything else fails, naming it. */
    private static void expectCleanOutcome(String what, Parse p) {
        try {
            p.run();
            ACCEPTED.incrementAndGet();
        } catch (HeException
                | ConfigException
                | CheckpointException
                | IllegalArgumentException
                | IOException
                | UncheckedIOException e) {
            if (e.getMessage() == null || e.getMessage().isBlank()) {
                fail(what + ": refused without a message", e);
            }
            REFUSED.incrementAndGet();
        } catch (Throwable e) {
            fail(what + ": " + e.getClass().getName() + " instead of a clean refusal", e);
        }
    }

    private static Arbitrary<byte[]> mutationsOf(byte[] seed) {
        return Arbitraries.randomValue(r -> Mutations.mutate(seed, r));
    }

    private static Arbitrary<String> jsonMutationsOf(String seed) {
        return Arbitraries.randomValue(r -> Mutations.mutateJson(seed, r));
    }

    /** Mutated files, half of them with the header's CRC32 made right again (anyone can compute one). */
    @Provide
    Arbitrary<byte[]> containers() {
        return Arbitraries.randomValue(r -> {
            byte[] b = Mutations.mutate(container, r);
            return r.nextBoolean() ? withHeaderChecksum(b) : b;
        });
    }

    /** The container's header CRC32 recomputed: magic, version, length, header, CRC (8 bytes), ciphertexts. */
    private static byte[] withHeaderChecksum(byte[] b) {
        if (b.length < 12) {
            return b;
        }
        int length = java.nio.ByteBuffer.wrap(b, 8, 4).getInt();
        if (length < 0 || 12L + length + 8 > b.length) {
            return b;
        }
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(b, 12, length);
        java.nio.ByteBuffer.wrap(b, 12 + length, 8).putLong(crc.getValue());
        return b;
    }

    /** A ckks-cpu blob's trailing CRC32 (of everything before it) recomputed. */
    private static byte[] withBlobChecksum(byte[] b) {
        if (b.length < 4) {
            return b;
        }
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(b, 0, b.length - 4);
        java.nio.ByteBuffer.wrap(b, b.length - 4, 4).putInt((int) crc.getValue());
        return b;
    }

    private static Arbitrary<byte[]> blobMutationsOf(byte[] seed) {
        return Arbitraries.randomValue(r -> {
            byte[] b = Mutations.mutate(seed, r);
            return r.nextBoolean() ? withBlobChecksum(b) : b;
        });
    }

    @Property
    void encryptedTensorFiles(@ForAll("containers") byte[] bytes) {
        expectCleanOutcome("encrypted tensor file", () -> {
            var contents = EncryptedTensorFormat.read(keys.context(), keys.backend(), new ByteArrayInputStream(bytes));
            for (EncryptedTensor t : contents.tensors().values()) {
                keys.engine().toPlain(t); // what the client's decrypt allocates
            }
        });
    }

    @Provide
    Arbitrary<byte[]> ciphertexts() {
        return blobMutationsOf(ciphertext);
    }

    @Property
    void ciphertextBlobs(@ForAll("ciphertexts") byte[] bytes) {
        expectCleanOutcome(
                "ciphertext blob", () -> keys.context().serializer().readCiphertext(new ByteArrayInputStream(bytes)));
    }

    @Provide
    Arbitrary<byte[]> keyBlobs() {
        return Arbitraries.oneOf(
                blobMutationsOf(evaluationKeys), blobMutationsOf(secretKey), blobMutationsOf(parameters));
    }

    @Property
    void keyAndParameterBlobs(@ForAll("keyBlobs") byte[] bytes) {
        var serializer = keys.context().serializer();
        expectCleanOutcome("evaluation keys", () -> serializer.readEvaluationKeys(new ByteArrayInputStream(bytes)));
        expectCleanOutcome("secret key", () -> serializer.readSecretKey(new ByteArrayInputStream(bytes)));
        expectCleanOutcome("parameters blob", () -> serializer.readParameters(new ByteArrayInputStream(bytes)));
    }

    @Provide
    Arbitrary<String> parameterFiles() {
        return jsonMutationsOf(parametersJson);
    }

    @Property
    void parameterFilesOnTheServer(@ForAll("parameterFiles") String json) throws IOException {
        Path folder = Files.createDirectories(dir.resolve("server-" + Long.toHexString(System.nanoTime())));
        Path server = KeyFiles.serverHalf(keyFolder);
        Files.copy(server.resolve(KeyFiles.KEYSET), folder.resolve(KeyFiles.KEYSET));
        Files.copy(server.resolve(KeyFiles.EVALUATION_KEYS), folder.resolve(KeyFiles.EVALUATION_KEYS));
        Files.writeString(folder.resolve(KeyFiles.PARAMETERS), json);
        expectCleanOutcome(
                "parameters.json",
                () -> KeyFiles.readServer(folder, backend, true).close());
    }

    @Provide
    Arbitrary<byte[]> safetensorsFiles() {
        return mutationsOf(safetensors);
    }

    @Property
    void checkpoints(@ForAll("safetensorsFiles") byte[] bytes) throws IOException {
        Path m = copyOfModel();
        Files.write(m.resolve("model.safetensors"), bytes);
        expectCleanOutcome("model.safetensors", () -> polyhe.inference().load(m));
    }

    @Provide
    Arbitrary<String> configs() {
        return jsonMutationsOf(config);
    }

    @Property
    void checkpointConfigs(@ForAll("configs") String json) throws IOException {
        Path m = copyOfModel();
        Files.writeString(m.resolve("config.json"), json);
        expectCleanOutcome("config.json", () -> polyhe.inference().load(m));
    }

    @Provide
    Arbitrary<String> tokenizers() {
        return jsonMutationsOf(tokenizer);
    }

    @Property
    void tokenizerFiles(@ForAll("tokenizers") String json) throws IOException {
        Path m = copyOfModel();
        Files.writeString(m.resolve("tokenizer.json"), json);
        Path text = Files.writeString(m.resolve("input.json"), "{\"text\": [\"hello world\"]}");
        expectCleanOutcome(
                "tokenizer.json",
                () -> dev.polyhe.core.inference.ModelInputs.read(
                        text, polyhe.inference().load(m).model()));
    }

    private static Path copyOfModel() throws IOException {
        Path m = Files.createDirectories(dir.resolve("m-" + Long.toHexString(System.nanoTime())));
        Files.copy(model.resolve("config.json"), m.resolve("config.json"));
        Files.copy(model.resolve("model.safetensors"), m.resolve("model.safetensors"));
        Files.writeString(m.resolve("tokenizer.json"), tokenizer);
        return m;
    }

    /**
     * A byte-level BPE tokenizer.json in the Hugging Face layout over the tiny model's 16-token vocabulary: the byte
     * alphabet's first 12 symbols, one merge, three special tokens.
     */
    private static String tokenizerJson() throws IOException {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode m = root.putObject("model").put("type", "BPE");
        ObjectNode vocab = m.putObject("vocab");
        String[] symbols = {"h", "e", "l", "o", "w", "r", "d", "Ġ", "ll", "a", "b", "c"};
        for (int i = 0; i < symbols.length; i++) {
            vocab.put(symbols[i], i);
        }
        m.putArray("merges").add("l l");
        var added = root.putArray("added_tokens");
        added.addObject().put("id", 12).put("content", "<s>").put("special", true);
        added.addObject().put("id", 13).put("content", "</s>").put("special", true);
        root.putObject("normalizer").put("type", "NFC");
        root.putObject("pre_tokenizer").put("type", "ByteLevel").put("add_prefix_space", false);
        return JSON.writeValueAsString(root).replace("\\u0120", "Ġ");
    }
}
