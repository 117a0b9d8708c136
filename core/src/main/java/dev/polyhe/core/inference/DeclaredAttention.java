package dev.polyhe.core.inference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.model.CheckpointException;
import dev.polyhe.core.config.PluginChoice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The attention mechanism a checkpoint was trained with, as its config.json declares it under {@value #KEY}:
 * {@code "polyhe_attention": {"name": "power-softmax", "options": {"p": 4, "epsilon": 0.001}}}. Hugging Face
 * ignores the key; a checkpoint without it was trained with its architecture's own softmax, which the polynomial
 * model approximates ({@link InferenceService#withAttentionOf}).
 */
public final class DeclaredAttention {
    public static final String KEY = "polyhe_attention";

    /** Why a run uses the declared mechanism, as commands print it. */
    public static final String DECLARED = "declared by the checkpoint";

    /** Why a run of a checkpoint without {@value #KEY} uses softmax (approximated in the polynomial model). */
    public static final String NONE_DECLARED = "the checkpoint declares none: softmax";

    private DeclaredAttention() {}

    /**
     * @return the declared mechanism, or empty when config.json has no {@value #KEY}
     * @throws CheckpointException when config.json is missing or unreadable, or the declaration malformed
     */
    public static Optional<PluginChoice> read(Path checkpoint) {
        Path file = checkpoint.resolve("config.json");
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new CheckpointException("checkpoint folder " + checkpoint + " has no config.json");
        } catch (IOException e) {
            throw new CheckpointException("cannot read " + file + ": " + e.getMessage(), e);
        }
        JsonNode d = root == null ? null : root.get(KEY);
        if (d == null || d.isNull()) {
            return Optional.empty();
        }
        String expected = "; expected {\"name\": \"power-softmax\", \"options\": {\"p\": 4, \"epsilon\": 0.001}}";
        if (!d.isObject()) {
            throw new CheckpointException(
                    file + ": '" + KEY + "' is " + d.getNodeType().name().toLowerCase() + expected);
        }
        JsonNode name = d.get("name");
        if (name == null || !name.isTextual() || name.asText().isBlank()) {
            throw new CheckpointException(file + ": '" + KEY + ".name' is missing or not a plugin name" + expected);
        }
        Map<String, Object> options = new LinkedHashMap<>();
        JsonNode o = d.get("options");
        if (o != null && !o.isNull()) {
            if (!o.isObject()) {
                throw new CheckpointException(file + ": '" + KEY + ".options' is not an object" + expected);
            }
            for (var e : o.properties()) {
                JsonNode v = e.getValue();
                if (!v.isValueNode() || v.isNull()) {
                    throw new CheckpointException(
                            file + ": '" + KEY + ".options." + e.getKey() + "' must be a number, string or boolean");
                }
                options.put(e.getKey(), v.isNumber() ? v.numberValue() : v.isBoolean() ? v.asBoolean() : v.asText());
            }
        }
        for (var field : (Iterable<String>) d::fieldNames) {
            if (!field.equals("name") && !field.equals("options")) {
                throw new CheckpointException(file + ": unknown key '" + KEY + "." + field + "'" + expected);
            }
        }
        return Optional.of(new PluginChoice(name.asText(), options));
    }
}
