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
 * polyhe calibrate}): everything the server needs besides a client's keys.
 */
final class ServedModels {
    static final String CALIBRATION = Calibration.SERVED_FILE;

    /** @param encrypted one per model, so that its queries share the bootstrap plans already made */
    record Served(
            String name,
            Path dir,
            LoadedModel model,
            InferenceService service,
            Calibration calibration,
            EncryptedInference encrypted) {}

    private final Map<String, Served> models = new TreeMap<>();

    /**
     * @param weightCacheBytes encoded weights each model keeps per key set across queries (0: none; see
     *     {@link PolyHeServer.Settings#WEIGHT_CACHE_BY_MEMORY})
     */
    ServedModels(PolyHe polyhe, List<Path> dirs, long weightCacheBytes) {
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
                            weights(new EncryptedInference(service), weightCacheBytes)));
        }
        if (models.isEmpty()) {
            throw new ConfigException("no model to serve: give --models DIR...");
        }
    }

    /** @throws HttpError 404 naming the served models */
    Served get(String name) {
        Served s = name == null ? null : models.get(name);
        if (s == null) {
            throw new HttpError(
                    404, "unknown model '" + name + "'; this server runs: " + String.join(", ", models.keySet()));
        }
        return s;
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
