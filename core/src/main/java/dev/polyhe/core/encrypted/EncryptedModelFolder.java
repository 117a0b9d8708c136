package dev.polyhe.core.encrypted;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.model.CheckpointException;
import dev.polyhe.core.engine.encrypted.EncryptedParameters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A model folder whose weights are ciphertexts (the paper's App. H): {@code config.json} and the calibration as the
 * owner made them, the {@link CheckpointSkeleton} as {@code model.safetensors} (shapes and magnitudes, no weight),
 * the parameters by site in {@value #PARAMETERS} (the encrypted tensor file format, bound to the key set), and the
 * manifest {@value #MANIFEST}: the key set, the packing and every site's shape and bounds.
 */
public final class EncryptedModelFolder {
    public static final String MANIFEST = "encrypted-model.json";
    public static final String PARAMETERS = "parameters.ct";
    public static final String CALIBRATION = "calibration.json";
    private static final String FORMAT = "polyhe-encrypted-model";
    private static final int VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    private EncryptedModelFolder() {}

    /** Whether {@code dir} holds an encrypted model (its manifest). */
    public static boolean isEncrypted(Path dir) {
        return Files.isRegularFile(dir.resolve(MANIFEST));
    }

    /** What {@link #write} wrote: the files' bytes and the sites. */
    public record Written(long bytes, int sites) {}

    /**
     * Writes the encrypted model folder {@code out} (created; an existing model folder is not overwritten).
     *
     * @param modelDir the model in the clear (its config and weights)
     * @param calibration the calibration the server runs it with
     */
    public static Written write(Path modelDir, Path calibration, KeySet keys, EncryptedParameters parameters, Path out)
            throws IOException {
        if (Files.exists(out.resolve("config.json")) || Files.exists(out.resolve(MANIFEST))) {
            throw new IllegalArgumentException(out + " already holds a model; give an empty or new folder");
        }
        Files.createDirectories(out);
        Files.copy(modelDir.resolve("config.json"), out.resolve("config.json"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(calibration, out.resolve(CALIBRATION), StandardCopyOption.REPLACE_EXISTING);
        CheckpointSkeleton.write(modelDir, out.resolve("model.safetensors"));
        EncryptedInference.write(
                keys,
                Map.of("content", "encrypted model parameters"),
                parameters.carriers(keys.packing()),
                out.resolve(PARAMETERS));
        ObjectNode m = JSON.createObjectNode();
        m.put("format", FORMAT);
        m.put("version", VERSION);
        m.put("backend", keys.backend());
        m.put("parameter_hash", keys.context().parameterHash());
        m.put("key_set", keys.evaluationKeys().keySetId());
        m.put("packing_slots", keys.packing().slots());
        m.put("columns_per_ciphertext", keys.packing().columnsPerCiphertext());
        ObjectNode sites = m.putObject("sites");
        parameters.describe().forEach((site, s) -> {
            ObjectNode o = sites.putObject(site);
            o.put("kind", s.linear() ? "linear" : "row");
            o.put("rows", s.rows());
            o.put("cols", s.cols());
            o.put("max_abs", s.maxAbs());
            o.put("max_row_sum", s.maxRowSum());
            if (!Double.isNaN(s.biasMaxAbs())) {
                o.put("bias_max_abs", s.biasMaxAbs());
            }
        });
        JSON.writerWithDefaultPrettyPrinter().writeValue(out.resolve(MANIFEST).toFile(), m);
        long bytes = 0;
        try (var files = Files.list(out)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                bytes += Files.size(p);
            }
        }
        return new Written(bytes, parameters.sites().size());
    }

    /**
     * The parameters of the encrypted model in {@code dir}, for the server's key set {@code keys}.
     *
     * @throws IllegalArgumentException naming what does not match: another key set, backend, parameter set or
     *     packing; a site the manifest lists and the file lacks
     * @throws CheckpointException where the manifest is missing or malformed
     */
    public static EncryptedParameters read(Path dir, KeySet keys) throws IOException {
        JsonNode m = manifest(dir);
        require(m, "backend", keys.backend(), dir, "backend");
        require(m, "parameter_hash", keys.context().parameterHash(), dir, "parameter set");
        require(m, "key_set", keys.evaluationKeys().keySetId(), dir, "key set");
        int slots = m.path("packing_slots").asInt(-1);
        int columns = m.path("columns_per_ciphertext").asInt(-1);
        if (slots != keys.packing().slots() || columns != keys.packing().columnsPerCiphertext()) {
            throw new IllegalArgumentException(dir.resolve(MANIFEST) + " was encrypted for " + columns
                    + " columns of " + slots + " slots per ciphertext, but the keys pack "
                    + keys.packing().columnsPerCiphertext() + " of "
                    + keys.packing().slots());
        }
        Map<String, EncryptedParameters.Site> sites = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = m.path("sites").fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode s = e.getValue();
            String kind = s.path("kind").asText();
            if (!kind.equals("linear") && !kind.equals("row")) {
                throw new CheckpointException(dir.resolve(MANIFEST) + ": site '" + e.getKey() + "' has kind '" + kind
                        + "'; expected linear or row");
            }
            sites.put(
                    e.getKey(),
                    new EncryptedParameters.Site(
                            kind.equals("linear"),
                            positive(s, "rows", e.getKey(), dir),
                            positive(s, "cols", e.getKey(), dir),
                            s.path("max_abs").asDouble(Double.NaN),
                            s.path("max_row_sum").asDouble(Double.NaN),
                            s.has("bias_max_abs") ? s.path("bias_max_abs").asDouble() : Double.NaN));
        }
        if (sites.isEmpty()) {
            throw new CheckpointException(dir.resolve(MANIFEST) + " lists no sites");
        }
        var contents = EncryptedInference.read(keys, dir.resolve(PARAMETERS));
        return EncryptedParameters.fromCarriers(sites, contents.tensors(), keys.packing());
    }

    private static JsonNode manifest(Path dir) throws IOException {
        Path file = dir.resolve(MANIFEST);
        JsonNode m;
        try {
            m = JSON.readTree(file.toFile());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new CheckpointException(file + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (m == null
                || !FORMAT.equals(m.path("format").asText())
                || m.path("version").asInt() != VERSION) {
            throw new CheckpointException(file + " is not a version " + VERSION + " " + FORMAT + " manifest");
        }
        return m;
    }

    private static void require(JsonNode m, String field, String expected, Path dir, String what) {
        String found = m.path(field).asText();
        if (!found.equals(expected)) {
            throw new IllegalArgumentException(dir + " was encrypted under " + what + " '" + found
                    + "', but the keys given are of " + what + " '" + expected
                    + "': run it with the key set it was encrypted for");
        }
    }

    private static int positive(JsonNode s, String field, String site, Path dir) {
        int v = s.path(field).asInt(-1);
        if (v < 1) {
            throw new CheckpointException(dir.resolve(MANIFEST) + ": site '" + site + "' has " + field + " = "
                    + s.path(field) + "; expected a positive integer");
        }
        return v;
    }
}
