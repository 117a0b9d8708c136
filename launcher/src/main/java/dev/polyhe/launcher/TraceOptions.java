package dev.polyhe.launcher;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * How an encrypted run is looked into: {@code --trace-errors}, the client-side error trace (see
 * {@link EncryptedRun#traced}), and {@code --explain-plan}, its bootstrap plan without running it
 * ({@link EncryptedRun#explain}).
 */
final class TraceOptions {
    @Option(
            names = "--trace-errors",
            arity = "0..1",
            paramLabel = "TRACE.json",
            fallbackValue = "",
            description = "ckks, client-side debugging: decrypt after every step and report the error against the "
                    + "plaintext polynomial model per layer and operator (absolute, relative, bits), the magnitude "
                    + "going into every bootstrap, levels and scales; a table, and JSON when a file is given. It "
                    + "needs the secret key: never run it on a server.")
    String traceErrors;

    @Option(
            names = "--explain-plan",
            description = "ckks: print where the engine bootstraps and why (per operator: "
                    + "levels consumed, bootstraps, the level each ciphertext was at and what "
                    + "the next step needed), planned "
                    + "on levels and scales alone, without keys or arithmetic (seconds, even for "
                    + "a 128-bit preset), and stop.")
    boolean explainPlan;

    boolean requested() {
        return traceErrors != null;
    }

    /** The run, traced if asked. */
    EncryptedRun apply(EncryptedRun run) {
        return traceErrors == null ? run : run.traced(traceErrors.isEmpty() ? null : Path.of(traceErrors));
    }
}
