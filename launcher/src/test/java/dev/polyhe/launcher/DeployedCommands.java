package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

/**
 * The four commands of a deployment as a user runs them, each asserted to succeed: {@code keys generate} (client),
 * {@code encrypt} (client), {@code eval --insecure-test} with the server half of the keys (server), {@code decrypt}
 * (client), for one model and calibration.
 */
record DeployedCommands(Path model, Path calibration, Path keys) {

    /** {@code keys generate --bootstrapping} for {@code maxTokens} tokens on {@code preset}, into {@code keys}. */
    static DeployedCommands generateKeys(Path model, Path calibration, String preset, int maxTokens, Path keys) {
        var gen = polyhe(
                "keys",
                "generate",
                "--model",
                model.toString(),
                "--preset",
                preset,
                "--bootstrapping",
                "--max-tokens",
                String.valueOf(maxTokens),
                "--out",
                keys.toString());
        assertEquals(0, gen.code(), gen.err());
        return new DeployedCommands(model, calibration, keys);
    }

    /** The first input of {@code query} encrypted into {@code out}. */
    Path encrypt(Path query, Path out) {
        var enc = polyhe(
                "encrypt",
                "--model",
                model.toString(),
                "--keys",
                keys.toString(),
                "--input",
                query.toString(),
                "--output",
                out.toString());
        assertEquals(0, enc.code(), enc.err());
        return out;
    }

    /** The server's evaluation of {@code in} into {@code out}, with the keys' server half only; its run. */
    LauncherTest.Run eval(Path in, Path out) {
        var eval = polyhe(
                "eval",
                "--insecure-test",
                "--model",
                model.toString(),
                "--keys",
                keys.resolve("server").toString(),
                "--calibration",
                calibration.toString(),
                "--input",
                in.toString(),
                "--output",
                out.toString());
        assertEquals(0, eval.code(), eval.err());
        return eval;
    }

    /** {@code in} decrypted into {@code answer}. */
    Path decrypt(Path in, Path answer) {
        var dec = polyhe("decrypt", "--keys", keys.toString(), "--input", in.toString(), "--output", answer.toString());
        assertEquals(0, dec.code(), dec.err());
        return answer;
    }
}
