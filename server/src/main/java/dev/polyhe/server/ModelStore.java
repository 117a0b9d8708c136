package dev.polyhe.server;

import dev.polyhe.core.KeySetIdentity;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import dev.polyhe.core.engine.encrypted.EncryptedTensorFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * The tenants' encrypted models ({@code polyhe encrypt-model}'s folders, the paper's App. H) under {@code
 * STORE/models/<id>/}. An upload is a zip of the folder's five files, streamed to a temporary folder, checked in
 * full against the key set it is uploaded for ({@link EncryptedModelCheck}) and moved into place in one rename, as
 * key sets are ({@link KeyStore}): a store never holds half a model, nor one that cannot run with its key set. The id
 * is the SHA-256 of the files' digests.
 */
final class ModelStore {
    static final List<String> FILES = List.of(
            EncryptedModelFolder.MANIFEST,
            "config.json",
            EncryptedModelFolder.CALIBRATION,
            "model.safetensors",
            EncryptedModelFolder.PARAMETERS);
    /** The text files: a manifest of a few lines per site, a config, a calibration's domains. */
    static final Map<String, Long> SMALL_FILES = Map.of(
            EncryptedModelFolder.MANIFEST,
            16L << 20,
            "config.json",
            1L << 20,
            EncryptedModelFolder.CALIBRATION,
            4L << 20);

    private static final ZipUpload UPLOAD = new ZipUpload(FILES, SMALL_FILES, "a zip of an encrypted model folder");

    private final StoredUploads models;
    private final long maxUploadBytes;

    /** What an upload became. */
    record Stored(String id, long bytes, boolean created) {}

    /** Checks an upload's folder in full against the key set's folder, or refuses it (an {@link HttpError}). */
    interface Check {
        void check(Path upload, Path keySet) throws IOException;
    }

    ModelStore(Path store, long maxUploadBytes) throws IOException {
        // the key store empties tmp/ at the start: an interrupted upload is never visible
        this.models = new StoredUploads(store, "models", ModelStore::notStored);
        this.maxUploadBytes = maxUploadBytes;
    }

    /**
     * Streams, checks and stores an upload for the key set in {@code keySet}; nothing of a refused one is kept.
     *
     * @param expectedId the id the client worked out ({@code X-Model-Id}), or null
     * @param written called with the bytes written so far (expanded); it may refuse them by throwing
     */
    Stored upload(InputStream body, Path keySet, String expectedId, LongConsumer written, Check check)
            throws IOException {
        KeySetIdentity identity = KeySetIdentity.ofKeyFolder(keySet);
        Path dir = models.receiving("model-");
        try {
            ZipUpload.Received received =
                    UPLOAD.receive(body, dir, maxUploadBytes, name -> {}, written, (n, entry, d) -> {
                        if (n.equals(EncryptedModelFolder.PARAMETERS)) {
                            // a parameter file of another key set is refused at its header, not after gigabytes
                            requireKeySet(EncryptedTensorFormat.identify(entry), identity);
                        }
                    });
            String id = KeyStore.contentId(received.digests());
            if (expectedId != null && !expectedId.equals(id)) {
                throw new HttpError(
                        400,
                        "the upload arrived as model " + id + " but the client sent " + expectedId
                                + ": corrupted in transit; upload again");
            }
            if (models.contains(id)) {
                // checked in full when it was stored; its key set must still be the one named
                if (!encryptedUnder(models.folder(id), keySet)) {
                    throw otherKeySet("it was encrypted under key set '"
                            + EncryptedModelFolder.manifest(models.folder(id)).keySetId() + "'");
                }
                return new Stored(id, received.bytes(), false);
            }
            check.check(dir, keySet);
            return new Stored(id, received.bytes(), models.place(dir, id));
        } catch (dev.polyhe.api.he.HeException e) {
            throw new HttpError(
                    400,
                    EncryptedModelFolder.PARAMETERS + " is not an encrypted parameter file: " + e.getMessage()
                            + "; nothing was kept");
        } finally {
            if (Files.exists(dir)) {
                KeyStore.deleteTree(dir);
            }
        }
    }

    private static void requireKeySet(EncryptedTensorFormat.Identity file, KeySetIdentity keySet) {
        String mismatch = keySet.mismatch(
                new KeySetIdentity(file.backend(), file.parameterHash(), file.packingSlots(), file.keySetId()));
        if (mismatch == null && !file.keySetId().equals(keySet.keySetId())) {
            mismatch = "it was encrypted under key set '" + file.keySetId() + "'";
        }
        if (mismatch != null) {
            throw otherKeySet(mismatch);
        }
    }

    /** The refusal (409) of an upload for a key set the model was not encrypted under, saying why. */
    static HttpError otherKeySet(String mismatch) {
        return new HttpError(
                409,
                "the encrypted model cannot run with the key set named: " + mismatch + "; upload it for the key "
                        + "set it was encrypted under (polyhe encrypt-model --keys), nothing was kept");
    }

    /** Whether the stored model in {@code model} was encrypted under the key set in {@code keySet}. */
    static boolean encryptedUnder(Path model, Path keySet) throws IOException {
        return EncryptedModelFolder.manifest(model)
                .keySetId()
                .equals(KeySetIdentity.ofKeyFolder(keySet).keySetId());
    }

    /** Removes a stored model: moved out of sight in one rename, then deleted. */
    void delete(String id) throws IOException {
        models.delete(id);
    }

    /** Whether {@code name} has the form of a model id (served models are named by folder). */
    static boolean isId(String name) {
        return name != null && KeyStore.ID.matcher(name).matches();
    }

    boolean contains(String id) {
        return models.contains(id);
    }

    /** @throws HttpError 404 when no such model is stored */
    Path folder(String id) {
        return models.folder(id);
    }

    /** The one answer for a model not stored and for one another tenant stored: nobody learns which. */
    static HttpError notStored(String id) {
        return new HttpError(
                404, "no encrypted model '" + id + "' on this server; upload it first (polyhe remote models upload)");
    }

    /** The bytes a stored model keeps on disk (0 for one not stored). */
    long bytes(String id) {
        return models.bytes(id);
    }

    long count() {
        return models.count();
    }
}
