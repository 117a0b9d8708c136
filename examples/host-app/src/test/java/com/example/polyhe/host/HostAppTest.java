package com.example.polyhe.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host application's flow on the shipped tiny Pythia: the decrypted answer is the plaintext model's. */
class HostAppTest {
    private static final Path ROOT = Path.of(System.getProperty("polyhe.repo.root", "../.."));

    @TempDir
    Path work;

    @Test
    void theDecryptedAnswerAgreesWithThePlaintextPolynomialModel() throws Exception {
        var r = HostApp.run(
                ROOT.resolve("examples/host-app/polyhe.yaml"),
                ROOT.resolve("models/tiny-pythia"),
                ROOT.resolve("examples/host-app/query.json"),
                work,
                HostApp.TEST_PRESET);

        assertEquals("ckks-cpu", r.backend(), "the backend the config file names");
        assertTrue(r.bootstraps() > 0, "the tiny Pythia is deeper than the test ring: the server bootstraps");
        // what the client gave the server holds no secret key; the client's half does
        assertTrue(Files.exists(work.resolve("keys/server/evaluation.keys")));
        assertFalse(Files.exists(work.resolve("keys/server/secret.key")));
        assertTrue(Files.exists(work.resolve("keys/client/secret.key")));

        var decrypted = r.decrypted().logits();
        var plaintext = r.plaintext().logits();
        assertEquals(plaintext.rows(), decrypted.rows());
        assertEquals(plaintext.cols(), decrypted.cols());
        assertTrue(r.agreement().mse() <= 1e-4, "MSE " + r.agreement().mse());
        assertTrue(r.agreement().maxAbs() <= 0.01, "max " + r.agreement().maxAbs());
        assertTrue(r.agreement().samePrediction(), "the same predicted token at every position");
        int[] plainTokens = new int[plaintext.rows()];
        int[] decryptedTokens = new int[decrypted.rows()];
        for (int i = 0; i < plainTokens.length; i++) {
            plainTokens[i] = argmax(plaintext.row(i));
            decryptedTokens[i] = argmax(decrypted.row(i));
        }
        assertArrayEquals(plainTokens, decryptedTokens);
    }

    private static int argmax(double[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[best]) {
                best = i;
            }
        }
        return best;
    }
}
