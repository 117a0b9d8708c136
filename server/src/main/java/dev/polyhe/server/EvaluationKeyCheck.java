package dev.polyhe.server;

import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeException;
import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.encrypted.ParameterFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parses an uploaded {@code evaluation.keys} as it streams, against the parameters its {@code parameters.json}
 * names, record by record and without keeping the keys: a malformed record (a count out of range, a coefficient
 * not below its prime, a truncated or foreign blob, a wrong checksum) refuses the upload (400) where it is met, and
 * nothing after it is read.
 */
final class EvaluationKeyCheck {
    private static final Logger LOG = LoggerFactory.getLogger(EvaluationKeyCheck.class);

    private final KeySetBackends backends;

    EvaluationKeyCheck(KeySetBackends backends) {
        this.backends = backends;
    }

    /**
     * Reads {@code keys} to the end of its blob, checking it.
     *
     * @param dir the upload's folder, its {@code keyset.properties} and {@code parameters.json} written and checked
     * @param properties the upload's {@code keyset.properties}
     * @return false when no backend of the key set's data format is available here (nothing was read: a job that
     *     loads the keys checks them)
     * @throws HttpError 400 at the first malformed record, or when the parameters do not match the key set's hash
     */
    boolean check(Path dir, Properties properties, InputStream keys) throws IOException {
        HeBackend backend = backends.of(properties);
        if (backend == null) {
            LOG.debug("no backend here reads this key set: evaluation.keys is checked when a job loads it");
            return false;
        }
        HeContext ctx;
        try {
            var params = ParameterFile.read(dir.resolve(KeyFiles.PARAMETERS));
            backend.validate(params);
            ctx = backend.open(params);
        } catch (IllegalArgumentException | HeException e) {
            throw new HttpError(400, KeyFiles.PARAMETERS + ": " + e.getMessage());
        }
        try (ctx) {
            String hash = properties.getProperty("parameter-hash", "").trim();
            if (!ctx.parameterHash().equals(hash)) {
                throw new HttpError(
                        400,
                        KeyFiles.PARAMETERS + " does not match the key set's parameter-hash " + hash + " in "
                                + KeyFiles.KEYSET + " (the upload mixes files of different key sets)");
            }
            ctx.serializer().checkEvaluationKeys(keys);
        } catch (HeException e) {
            throw new HttpError(
                    400,
                    KeyFiles.EVALUATION_KEYS + " is not the evaluation keys of these parameters: " + e.getMessage()
                            + "; nothing was kept");
        }
        return true;
    }
}
