package dev.polyhe.server;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.model.CheckpointException;
import dev.polyhe.core.KeySetIdentity;
import dev.polyhe.core.config.ConfigException;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.encrypted.ParameterFile;
import dev.polyhe.core.engine.encrypted.Packing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Properties;

/**
 * An uploaded encrypted model checked before it is kept: its manifest names the key set it is uploaded for (409
 * otherwise), and the folder passes {@link EncryptedInference#checkEncryptedModel} (400 otherwise): it loads as a
 * model, its manifest lists exactly the sites that model's run takes, and every ciphertext of its parameter file
 * reads and belongs to the manifest's sites. Needs the key set's parameters, never its evaluation keys.
 */
final class EncryptedModelCheck implements ModelStore.Check {
    private final KeySetBackends backends;

    EncryptedModelCheck(KeySetBackends backends) {
        this.backends = backends;
    }

    @Override
    public void check(Path upload, Path keySet) throws IOException {
        Properties p = KeyFiles.keySetProperties(keySet);
        KeySetIdentity identity = KeySetIdentity.ofKeyFolder(keySet);
        Packing packing = KeyFiles.packing(p);
        HeBackend backend = backends.of(p);
        if (backend == null) {
            throw new HttpError(
                    400,
                    "no backend of this server reads key sets of '" + identity.backend() + "': it cannot run "
                            + "a model encrypted under one");
        }
        try {
            EncryptedModelFolder.Manifest manifest = EncryptedModelFolder.manifest(upload);
            String mismatch =
                    manifest.mismatch(identity.backend(), identity.parameterHash(), identity.keySetId(), packing);
            if (mismatch != null) {
                throw ModelStore.otherKeySet(mismatch);
            }
            CkksParameters params = ParameterFile.read(keySet.resolve(KeyFiles.PARAMETERS));
            // the checkpoint's own attention, as a served model's: the owner calibrated that model
            var service = backends.polyhe().inference().withAttentionOf(upload);
            new EncryptedInference(service).checkEncryptedModel(upload, backend, identity.backend(), params, packing);
        } catch (CheckpointException
                | ConfigException
                | HeException
                | IllegalArgumentException
                | IllegalStateException
                | UncheckedIOException e) {
            throw new HttpError(400, "the encrypted model is refused: " + e.getMessage() + "; nothing was kept");
        }
    }
}
