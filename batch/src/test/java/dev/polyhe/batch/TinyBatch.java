package dev.polyhe.batch;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.ClientKeys;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.PrivateInference;
import dev.polyhe.core.bench.RandomCheckpoint;
import dev.polyhe.core.inference.Calibration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A batch's inputs for the tests: a generated GPT-NeoX (tiny shape) with its declared attention and calibration, a
 * key set on the insecure small bootstrapping ring whose server half sits in a store, and encrypted queries
 * {@code q0.ct ...}; the client side stays here to decrypt the answers.
 */
final class TinyBatch implements AutoCloseable {
    final Path model;
    final Path queries;
    final Path store;
    final PolyHe polyhe;
    final PrivateInference inference;
    final ClientKeys keys;
    final Calibration calibration;
    final List<ModelInput> inputs = new ArrayList<>();

    TinyBatch(Path dir, int queryCount) throws IOException {
        model = RandomCheckpoint.write(dir.resolve("tiny"), RandomCheckpoint.shape("tiny"), 23);
        RandomCheckpoint.declareAttention(model, "power-softmax", Map.of("p", 4, "epsilon", 0.001));
        polyhe = PolyHe.builder().threads(1).build();
        inference = polyhe.privateInference(model, "ckks-cpu");
        Files.writeString(dir.resolve("samples.json"), "{\"input_ids\": [[3, 8, 1], [5, 2, 9], [7, 7, 4], [1, 6, 2]]}");
        calibration = inference.calibrate(inference.readInputs(dir.resolve("samples.json")));
        calibration.write(model.resolve("calibration.json"));
        keys = inference.generateKeys("insecure-test-boot-dense-N10", 4, true);
        keys.write(dir.resolve("keys"));
        // the store holds the server half only, as shared storage would
        Path client = Files.createDirectories(dir.resolve("store").resolve("client-a"));
        for (String f : List.of("keyset.properties", "parameters.json", "evaluation.keys")) {
            Files.copy(dir.resolve("keys").resolve("server").resolve(f), client.resolve(f));
        }
        store = client.getParent();
        queries = Files.createDirectories(dir.resolve("queries"));
        for (int i = 0; i < queryCount; i++) {
            Path in = dir.resolve("in" + i + ".json");
            Files.writeString(in, "{\"input_ids\": [[" + (2 + i) + ", " + (9 - i) + ", " + (1 + 2 * i) + "]]}");
            inputs.add(inference.readInputs(in).get(0));
            inference.write(
                    keys.serverKeys(), inference.encrypt(keys, inputs.get(i)), queries.resolve("q" + i + ".ct"));
        }
    }

    /** A sound header over damaged ciphertexts: routed to its key set, fails on the executor. */
    Path corruptQuery(Path file) throws IOException {
        byte[] q = Files.readAllBytes(queries.resolve("q0.ct"));
        q[q.length - 9] ^= 0x5a;
        return Files.write(file, java.util.Arrays.copyOf(q, q.length - 4));
    }

    /** Query {@code i}'s answer in {@code output} decrypts to the plaintext polynomial model's. */
    void assertAnswered(Path output, int i) throws IOException {
        var answer = inference.readAnswer(keys, output.resolve("q" + i + ".result.ct"));
        var agreement = inference
                .decrypt(keys, answer)
                .agreementWith(inference.plaintextPolynomial(inputs.get(i), calibration));
        assertTrue(agreement.mse() <= 1e-4, "query " + i + ": MSE " + agreement.mse());
        assertTrue(agreement.samePrediction(), "query " + i);
    }

    @Override
    public void close() {
        polyhe.close();
    }
}
