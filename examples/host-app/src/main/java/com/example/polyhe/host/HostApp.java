package com.example.polyhe.host;

import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.ClientKeys;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.PrivateInference;
import dev.polyhe.core.PrivateInference.Agreement;
import dev.polyhe.core.PrivateInference.EncryptedAnswer;
import dev.polyhe.core.PrivateInference.EncryptedQuery;
import dev.polyhe.core.PrivateInference.Prediction;
import dev.polyhe.core.ServerKeys;
import dev.polyhe.core.inference.Calibration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A host application that embeds PolyHE through its façade ({@link PolyHe}, {@link PrivateInference} and the key
 * handles), playing both roles of a private query with files between them, as deployed:
 *
 * <ol>
 *   <li>client: generates the keys, writes the two halves ({@code keys/client} keeps the secret key,
 *       {@code keys/server} is what the server is given), encrypts one input into {@code in.ct};</li>
 *   <li>server: loads {@code keys/server} only (no secret key is there to read), evaluates the polynomial model on
 *       the ciphertext with the backend the config file names ({@code inference.backend}), writes {@code out.ct};</li>
 *   <li>client: decrypts {@code out.ct} and compares it with the plaintext polynomial model.</li>
 * </ol>
 *
 * <p>Run it on the tiny model the repository ships:
 * {@code java -cp ... com.example.polyhe.host.HostApp examples/host-app/polyhe.yaml models/tiny-pythia
 * examples/host-app/query.json work/}.
 * The default preset is an <b>insecure</b> test ring (N = 2^10), so the example runs in seconds; a real deployment
 * takes a 128-bit preset such as {@code N16-boot-128} (minutes, and about 10 GB of keys).
 */
public final class HostApp {
    /** The small bootstrapping ring the tests use: insecure, for trying the flow only. */
    public static final String TEST_PRESET = "insecure-test-boot-dense-N10";

    /** What one private query gave: the decrypted answer, the plaintext reference and how well they agree. */
    public record Result(
            String backend,
            Prediction decrypted,
            Prediction plaintext,
            Agreement agreement,
            long bootstraps,
            double serverSeconds) {}

    private HostApp() {}

    /**
     * Usage: {@code HostApp CONFIG.yaml MODEL_DIR QUERY.json WORK_DIR [PRESET]}. Prints the agreement of the decrypted
     * answer
     * with the plaintext polynomial model; exits 1 if they disagree beyond 1e-4 (MSE) or on a predicted token.
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 4 || args.length > 5) {
            System.err.println("usage: HostApp CONFIG.yaml MODEL_DIR QUERY.json WORK_DIR [PRESET]   (PRESET: "
                    + TEST_PRESET + " by default, insecure)");
            System.exit(2);
        }
        Result r = run(
                Path.of(args[0]),
                Path.of(args[1]),
                Path.of(args[2]),
                Path.of(args[3]),
                args.length == 5 ? args[4] : TEST_PRESET);
        System.out.printf(
                "backend %s: %d bootstraps, %.1f s on the server%n", r.backend(), r.bootstraps(), r.serverSeconds());
        System.out.printf(
                "decrypted vs plaintext polynomial model: MSE %.2e, max %.2e, same prediction: %s%n",
                r.agreement().mse(), r.agreement().maxAbs(), r.agreement().samePrediction());
        if (!(r.agreement().mse() <= 1e-4 && r.agreement().samePrediction())) {
            System.exit(1);
        }
    }

    /**
     * One private query (the first input of {@code queryFile}, JSON as {@code polyhe infer} reads it), client and
     * server in this process but exchanging files only (under {@code work}). The approximation domains are
     * calibrated on the model's sample inputs ({@code MODEL_DIR/input.json}).
     */
    public static Result run(Path config, Path model, Path queryFile, Path work, String preset) throws IOException {
        Files.createDirectories(work);
        try (PolyHe polyhe = PolyHe.builder().configFile(config).build()) {
            // The server's backend comes from the config file (inference.backend); ckks-cpu when it names none.
            String backend = polyhe.config().inference().backend();
            if (backend == null) {
                backend = "ckks-cpu";
            }
            PrivateInference inference = polyhe.privateInference(model, backend);
            List<ModelInput> samples = inference.readInputs(model.resolve("input.json"));
            // The approximation domains (the model owner's calibration), shared by client and server.
            Calibration domains = inference.calibrate(samples);
            ModelInput query = inference.readInputs(queryFile).get(0);

            try (ClientKeys keys = Client.keysAndQuery(inference, preset, query, work)) {
                EncryptedAnswer served = Server.answer(inference, domains, work);
                Prediction decrypted = Client.decrypt(inference, keys, work);
                Prediction plaintext = inference.plaintextPolynomial(query, domains);
                return new Result(
                        backend,
                        decrypted,
                        plaintext,
                        decrypted.agreementWith(plaintext),
                        served.bootstraps(),
                        served.seconds());
            }
        }
    }

    /** The client's side: it alone holds the secret key. */
    static final class Client {
        private Client() {}

        /** Keys for the query's length (with bootstrapping keys), written as two halves; the query encrypted. */
        static ClientKeys keysAndQuery(PrivateInference inference, String preset, ModelInput query, Path work)
                throws IOException {
            ClientKeys keys = inference.generateKeys(preset, query.inputIds().length, true); // a token model
            keys.write(work.resolve("keys")); // keys/server: the half the server is given
            EncryptedQuery encrypted = inference.encrypt(keys, query);
            inference.write(keys.serverKeys(), encrypted, work.resolve("in.ct"));
            return keys;
        }

        /** The server's answer, decrypted. */
        static Prediction decrypt(PrivateInference inference, ClientKeys keys, Path work) throws IOException {
            return inference.decrypt(keys, inference.readAnswer(keys, work.resolve("out.ct")));
        }
    }

    /** The server's side: evaluation keys only, read from the folder the client gave it. */
    static final class Server {
        private Server() {}

        static EncryptedAnswer answer(PrivateInference inference, Calibration domains, Path work) throws IOException {
            // true: this server consents to an insecure test key set (a 128-bit preset needs no consent)
            try (ServerKeys keys = inference.loadServerKeys(work.resolve("keys/server"), true)) {
                EncryptedQuery query = inference.readQuery(keys, work.resolve("in.ct"));
                EncryptedAnswer answer =
                        inference.evaluate(keys, query, domains, event -> System.err.println("server: " + event));
                inference.write(keys, answer, work.resolve("out.ct"));
                return answer;
            }
        }
    }
}
