package dev.polyhe.launcher;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --trace-errors}: the client-side error trace of an encrypted run (see {@link EncryptedRun#traced}). */
final class TraceOptions {
    @Option(names = "--trace-errors", arity = "0..1", paramLabel = "TRACE.json", fallbackValue = "",
            description = "ckks, client-side debugging: decrypt after every step and report the error against the "
                    + "plaintext polynomial model per layer and operator (absolute, relative, bits), the magnitude "
                    + "going into every bootstrap, levels and scales; a table, and JSON when a file is given. It "
                    + "needs the secret key: never run it on a server.")
    String traceErrors;

    boolean requested() {
        return traceErrors != null;
    }

    /** The run, traced if asked. */
    EncryptedRun apply(EncryptedRun run) {
        return traceErrors == null ? run : run.traced(traceErrors.isEmpty() ? null : Path.of(traceErrors));
    }
}
