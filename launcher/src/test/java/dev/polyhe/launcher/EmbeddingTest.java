package dev.polyhe.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.ClientKeys;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.PrivateInference;
import dev.polyhe.core.ServerKeys;
import dev.polyhe.core.bench.RandomCheckpoint;
import dev.polyhe.core.inference.Calibration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host application's encrypted round trip through the façade alone (PolyHe, PrivateInference, the key handles):
 * keys, encryption, the server's evaluation with the evaluation keys only (from files, as deployed), decryption.
 * It runs on the module path with the launcher's tests, and on the class path in a surefire execution of its own.
 */
class EmbeddingTest {
    @TempDir
    Path dir;

    @Test
    void theEncryptedRoundTripThroughTheFacadeAgreesWithThePlaintextPolynomialModel() throws Exception {
        Path model = RandomCheckpoint.write(dir.resolve("model"), RandomCheckpoint.shape("tiny"), 5);
        Files.writeString(dir.resolve("input.json"), "{\"input_ids\": [[4, 9, 2]]}");
        try (PolyHe polyhe = PolyHe.builder().threads(1).build()) {
            // a checkpoint that declares no attention runs its own softmax, approximated
            assertEquals(
                    "softmax-square (the checkpoint declares none: softmax, approximated by softmax-square)",
                    polyhe.privateInference(model, "ckks-cpu").attention());
            RandomCheckpoint.declareAttention(model, "power-softmax", java.util.Map.of("p", 4, "epsilon", 0.001));

            PrivateInference inference = polyhe.privateInference(model, "ckks-cpu");
            assertEquals("power-softmax {epsilon=0.001, p=4} (declared by the checkpoint)", inference.attention());
            assertEquals("gpt_neox", inference.modelType());
            List<ModelInput> inputs = inference.readInputs(dir.resolve("input.json"));
            Calibration domains = inference.calibrate(inputs);
            List<PrivateInference.Event> events = new ArrayList<>();
            PrivateInference.Prediction prediction;
            try (ClientKeys keys = inference.generateKeys("insecure-test-boot-dense-N10", 4, true)) {
                keys.write(dir.resolve("keys")); // keys/server is what the server is given
                inference.write(keys.serverKeys(), inference.encrypt(keys, inputs.get(0)), dir.resolve("in.ct"));
                try (ServerKeys server = inference.loadServerKeys(dir.resolve("keys/server"), true)) {
                    var answer = inference.evaluate(
                            server, inference.readQuery(server, dir.resolve("in.ct")), domains, events::add);
                    assertTrue(answer.seconds() > 0 && answer.bootstraps() > 0, "bootstraps " + answer.bootstraps());
                    inference.write(server, answer, dir.resolve("out.ct"));
                }
                prediction = inference.decrypt(keys, inference.readAnswer(keys, dir.resolve("out.ct")));
            }
            assertEquals(1, events.size(), "one block, one event: " + events);
            var done = (PrivateInference.BlockDone) events.get(0);
            assertEquals(1, done.block());
            assertEquals(1, done.blocks());
            var agreement = prediction.agreementWith(inference.plaintextPolynomial(inputs.get(0), domains));
            assertTrue(agreement.mse() <= 1e-4, "mse " + agreement.mse());
            assertTrue(agreement.samePrediction());
        }
    }
}
