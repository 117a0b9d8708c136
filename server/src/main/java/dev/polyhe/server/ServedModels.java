package dev.polyhe.server;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.config.ConfigException;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.LoadedModel;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checkpoints a server runs, by folder name. Each folder holds the checkpoint, declares its polynomial attention
 * (config.json {@code polyhe_attention}) and holds the approximation domains in {@value #CALIBRATION} (from {@code
 * polyhe calibrate}): everything the server needs besides a client's keys. Beside them, by id, the encrypted models
 * tenants upload ({@link ModelStore}), loaded at their first use and kept while among the most recently used.
 */
final class ServedModels {
    static final String CALIBRATION = Calibration.SERVED_FILE;

    /**
     * @param encrypted one per model, so that its queries share the bootstrap plans already made
     * @param encryptedWeights an uploaded encrypted model: its parameters are ciphertexts in {@code dir}
     */
    record Served(
            String name,
            Path dir,
            LoadedModel model,
            InferenceService service,
            Calibration calibration,
            EncryptedInference encrypted,
            boolean encryptedWeights) {}

    private final Map<String, Served> models = new TreeMap<>();
    /**
     * Uploaded models loaded for their jobs, the {@value #LOADED_UPLOADS} most recently used: their skeletons are
     * the models' size in memory, and tenants may keep many.
     */
    private final Map<String, Served> uploaded =
            java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Served> eldest) {
                    return size() > LOADED_UPLOADS;
                }
            });

    static final int LOADED_UPLOADS = 4;
    private final PolyHe polyhe;
    private final ModelStore store;

    /**
     * @param weightCacheBytes encoded weights each model keeps per key set across queries (0: none; see
     *     {@link PolyHeServer.Settings#WEIGHT_CACHE_BY_MEMORY})
     */
    ServedModels(PolyHe polyhe, List<Path> dirs, long weightCacheBytes, ModelStore store) {
        this.polyhe = polyhe;
        this.store = store;
        for (Path dir : dirs) {
            String name = dir.toAbsolutePath().normalize().getFileName().toString();
            if (models.containsKey(name)) {
                throw new ConfigException("two served models are named '" + name + "' ("
                        + models.get(name).dir() + " and " + dir + "); model names are folder names");
            }
            Calibration calibration = Calibration.ofServedModel(dir);
            // the checkpoint's own attention, whatever the server's config says: a client's keys and calibration
            // are for that model
            InferenceService service = polyhe.inference().withAttentionOf(dir);
            models.put(
                    name,
                    new Served(
                            name,
                            dir,
                            service.load(dir),
                            service,
                            calibration,
                            weights(new EncryptedInference(service), weightCacheBytes),
                            false));
        }
        if (models.isEmpty()) {
            throw new ConfigException("no model to serve: give --models DIR...");
        }
    }

    /**
     * A served model by name, or an uploaded encrypted model by id (the caller checks that the tenant owns it).
     *
     * @throws HttpError 404 naming the served models
     */
    Served get(String name) {
        if (ModelStore.isId(name) && !models.containsKey(name)) {
            Path dir = store.folder(name);
            return uploaded.computeIfAbsent(name, id -> {
                InferenceService service = polyhe.inference().withAttentionOf(dir);
                return new Served(
                        id,
                        dir,
                        service.loadEncrypted(dir),
                        service,
                        Calibration.read(dir.resolve(CALIBRATION)),
                        new EncryptedInference(service),
                        true);
            });
        }
        Served s = name == null ? null : models.get(name);
        if (s == null) {
            throw new HttpError(
                    404, "unknown model '" + name + "'; this server runs: " + String.join(", ", models.keySet()));
        }
        return s;
    }

    /**
     * A served model's folder by name, or an uploaded encrypted model's by id, without loading it.
     *
     * @throws HttpError 404 as {@link #get} does
     */
    Path folder(String name) {
        if (ModelStore.isId(name) && !models.containsKey(name)) {
            return store.folder(name);
        }
        return get(name).dir();
    }

    /** Forgets a deleted encrypted model (a job already running keeps what it holds). */
    void forget(String id) {
        uploaded.remove(id);
    }

    List<String> names() {
        return List.copyOf(models.keySet());
    }

    private static EncryptedInference weights(EncryptedInference inference, long bytes) {
        return bytes == PolyHeServer.Settings.WEIGHT_CACHE_BY_MEMORY
                ? inference.keepWeightsByMemory(
                        (long) (0.1 * Runtime.getRuntime().maxMemory()))
                : inference.keepWeights(bytes);
    }
}
