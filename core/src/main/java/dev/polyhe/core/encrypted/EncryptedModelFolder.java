package dev.polyhe.core.encrypted;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.model.CheckpointException;
import dev.polyhe.core.engine.encrypted.EncryptedParameters;
import dev.polyhe.core.engine.encrypted.Packing;
import dev.polyhe.core.inference.Calibration;
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
    public static Written write(
            Path modelDir, Calibration calibration, KeySet keys, EncryptedParameters parameters, Path out)
            throws IOException {
        if (Files.exists(out.resolve("config.json")) || Files.exists(out.resolve(MANIFEST))) {
            throw new IllegalArgumentException(out + " already holds a model; give an empty or new folder");
        }
        Files.createDirectories(out);
        Files.copy(modelDir.resolve("config.json"), out.resolve("config.json"), StandardCopyOption.REPLACE_EXISTING);
        calibration.write(out.resolve(CALIBRATION));
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
     * The manifest: the key set, backend, parameter set and packing the parameters were encrypted for, and every
     * site's shape and bounds.
     */
    public record Manifest(
            String backend,
            String parameterHash,
            String keySetId,
            int packingSlots,
            int columnsPerCiphertext,
            Map<String, EncryptedParameters.Site> sites) {
        /**
         * What keeps these parameters from running with a key set, or null when nothing does.
         *
         * @param keySetId the key set's own id (its evaluation keys', {@code keyset.properties}' key-set-id)
         */
        public String mismatch(String backend, String parameterHash, String keySetId, Packing packing) {
            if (!this.keySetId.equals(keySetId)) {
                return "it was encrypted under key set '" + this.keySetId + "', not '" + keySetId + "'";
            }
            if (!this.backend.equals(backend)) {
                return "it was encrypted for backend '" + this.backend + "', not '" + backend + "'";
            }
            if (!this.parameterHash.equals(parameterHash)) {
                return "it was encrypted under parameter set '" + this.parameterHash + "', not '" + parameterHash + "'";
            }
            if (packingSlots != packing.slots() || columnsPerCiphertext != packing.columnsPerCiphertext()) {
                return "it was encrypted for " + columnsPerCiphertext + " columns of " + packingSlots
                        + " slots per ciphertext, but the keys pack " + packing.columnsPerCiphertext() + " of "
                        + packing.slots();
            }
            return null;
        }
    }

    /**
     * The parameters of the encrypted model in {@code dir}, for the server's key set {@code keys}.
     *
     * @throws IllegalArgumentException naming what does not match: another key set, backend, parameter set or
     *     packing; a site the manifest lists and the file lacks
     * @throws CheckpointException where the manifest is missing or malformed
     */
    public static EncryptedParameters read(Path dir, KeySet keys) throws IOException {
        Manifest m = manifest(dir);
        String mismatch = m.mismatch(
                keys.backend(),
                keys.context().parameterHash(),
                keys.evaluationKeys().keySetId(),
                keys.packing());
        if (mismatch != null) {
            throw new IllegalArgumentException(dir + " cannot run with the keys given: " + mismatch
                    + "; run it with the key set it was " + "encrypted for");
        }
        var contents = EncryptedInference.read(keys, dir.resolve(PARAMETERS));
        return EncryptedParameters.fromCarriers(m.sites(), contents.tensors(), keys.packing());
    }

    /**
     * The manifest of the encrypted model in {@code dir}, every field checked.
     *
     * @throws CheckpointException where it is missing, not JSON, of another format or version, or a field is
     *     missing or malformed
     */
    public static Manifest manifest(Path dir) throws IOException {
        Path file = dir.resolve(MANIFEST);
        JsonNode m;
        try {
            m = JSON.readTree(file.toFile());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new CheckpointException(file + " is not valid JSON: " + e.getOriginalMessage());
        } catch (java.io.FileNotFoundException | java.nio.file.NoSuchFileException e) {
            throw new CheckpointException(dir + " has no " + MANIFEST + ": not an encrypted model folder");
        }
        if (m == null
                || !FORMAT.equals(m.path("format").asText())
                || m.path("version").asInt() != VERSION) {
            throw new CheckpointException(file + " is not a version " + VERSION + " " + FORMAT + " manifest");
        }
        Map<String, EncryptedParameters.Site> sites = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = m.path("sites").fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode s = e.getValue();
            String kind = s.path("kind").asText();
            if (!kind.equals("linear") && !kind.equals("row")) {
                throw new CheckpointException(
                        file + ": site '" + e.getKey() + "' has kind '" + kind + "'; expected linear or row");
            }
            sites.put(
                    e.getKey(),
                    new EncryptedParameters.Site(
                            kind.equals("linear"),
                            positive(s, "rows", e.getKey(), dir),
                            positive(s, "cols", e.getKey(), dir),
                            bound(s, "max_abs", e.getKey(), dir),
                            bound(s, "max_row_sum", e.getKey(), dir),
                            s.has("bias_max_abs") ? bound(s, "bias_max_abs", e.getKey(), dir) : Double.NaN));
        }
        if (sites.isEmpty()) {
            throw new CheckpointException(file + " lists no sites");
        }
        int slots = m.path("packing_slots").asInt(-1);
        int columns = m.path("columns_per_ciphertext").asInt(-1);
        if (slots < 1 || columns < 1) {
            throw new CheckpointException(file + ": packing_slots and columns_per_ciphertext must be positive "
                    + "integers, got " + m.path("packing_slots") + " and " + m.path("columns_per_ciphertext"));
        }
        return new Manifest(
                text(m, "backend", file),
                text(m, "parameter_hash", file),
                text(m, "key_set", file),
                slots,
                columns,
                sites);
    }

    /**
     * The manifest's sites are exactly those the model's run takes ({@code needed}, from its config): each there, of
     * its shape, none extra.
     *
     * @throws IllegalArgumentException naming the first site that differs
     */
    static void requireSites(
            Path dir, Map<String, EncryptedParameters.Shape> needed, Map<String, EncryptedParameters.Site> listed) {
        String manifest = MANIFEST + " does not match config.json: ";
        for (var e : needed.entrySet()) {
            EncryptedParameters.Site site = listed.get(e.getKey());
            if (site == null) {
                throw new IllegalArgumentException(manifest + "the model runs " + e.getValue() + " at site '"
                        + e.getKey() + "', which the manifest does not list");
            }
            if (!site.shape().equals(e.getValue())) {
                throw new IllegalArgumentException(manifest + "site '" + e.getKey() + "' is " + site.shape()
                        + " in the manifest but " + e.getValue() + " in the model");
            }
        }
        for (String site : listed.keySet()) {
            if (!needed.containsKey(site)) {
                throw new IllegalArgumentException(
                        manifest + "it lists site '" + site + "', which the model's run never takes");
            }
        }
    }

    private static String text(JsonNode m, String field, Path file) {
        if (!m.path(field).isTextual() || m.path(field).asText().isEmpty()) {
            throw new CheckpointException(file + ": '" + field + "' is missing; expected a non-empty string");
        }
        return m.path(field).asText();
    }

    /** A bound the engine plans with: finite and not negative. */
    private static double bound(JsonNode s, String field, String site, Path dir) {
        double v = s.path(field).asDouble(Double.NaN);
        if (!s.path(field).isNumber() || !Double.isFinite(v) || v < 0) {
            throw new CheckpointException(dir.resolve(MANIFEST) + ": site '" + site + "' has " + field + " = "
                    + s.path(field) + "; expected a finite number of 0 or more");
        }
        return v;
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
