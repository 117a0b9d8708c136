package dev.polyhe.models.checkpoint;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.model.CheckpointException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * A checkpoint's {@code config.json}, read with Jackson, with typed field access whose errors name the file,
 * the field and what was expected. Architectures turn it into their own typed config record.
 */
public final class HfConfig {
    public static final String FILE = "config.json";

    private final Path file;
    private final JsonNode root;
    private final String modelType;

    private HfConfig(Path file, JsonNode root) {
        this.file = file;
        this.root = root;
        JsonNode t = root.get("model_type");
        if (t == null || !t.isTextual() || t.asText().isBlank()) {
            throw new CheckpointException(file + ": missing required field 'model_type'");
        }
        this.modelType = t.asText();
    }

    /** Reads {@code dir/config.json}. */
    public static HfConfig read(Path dir) {
        Path file = dir.resolve(FILE);
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new CheckpointException("checkpoint folder " + dir + " has no " + FILE);
        } catch (IOException e) {
            throw new CheckpointException("cannot read " + file + ": " + e.getMessage(), e);
        }
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new CheckpointException(file + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new CheckpointException(file + " is not a JSON object");
        }
        return new HfConfig(file, root);
    }

    /** Reads the config and checks that it is for {@code architecture}. */
    public static HfConfig read(Path dir, String architecture) {
        HfConfig c = read(dir);
        if (!c.modelType.equals(architecture)) {
            throw new CheckpointException(c.file + ": model_type '" + c.modelType + "' is not supported by the "
                    + architecture + " architecture");
        }
        return c;
    }

    public String modelType() {
        return modelType;
    }

    public Path file() {
        return file;
    }

    private JsonNode field(String key, boolean required) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            if (required) {
                throw new CheckpointException(
                        file + ": missing required field '" + key + "' (model_type " + modelType + ")");
            }
            return null;
        }
        return n;
    }

    private CheckpointException wrongType(String key, JsonNode n, String expected) {
        return new CheckpointException(file + ": field '" + key + "' = " + n + " is not " + expected);
    }

    public boolean has(String key) {
        return field(key, false) != null;
    }

    public int requireInt(String key) {
        return toInt(key, field(key, true));
    }

    public int optInt(String key, int fallback) {
        JsonNode n = field(key, false);
        return n == null ? fallback : toInt(key, n);
    }

    private int toInt(String key, JsonNode n) {
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            throw wrongType(key, n, "an integer");
        }
        return n.asInt();
    }

    public double requireDouble(String key) {
        return toDouble(key, field(key, true));
    }

    public double optDouble(String key, double fallback) {
        JsonNode n = field(key, false);
        return n == null ? fallback : toDouble(key, n);
    }

    private double toDouble(String key, JsonNode n) {
        if (!n.isNumber()) {
            throw wrongType(key, n, "a number");
        }
        return n.asDouble();
    }

    public boolean optBoolean(String key, boolean fallback) {
        JsonNode n = field(key, false);
        if (n == null) {
            return fallback;
        }
        if (!n.isBoolean()) {
            throw wrongType(key, n, "true or false");
        }
        return n.asBoolean();
    }

    public String optString(String key, String fallback) {
        JsonNode n = field(key, false);
        if (n == null) {
            return fallback;
        }
        if (!n.isTextual()) {
            throw wrongType(key, n, "a string");
        }
        return n.asText();
    }

    /** A string field restricted to {@code allowed}. */
    public String optChoice(String key, String fallback, List<String> allowed) {
        String v = optString(key, fallback);
        if (!allowed.contains(v)) {
            throw new CheckpointException(file + ": field '" + key + "' = '" + v + "' is not supported; supported: "
                    + String.join(", ", allowed));
        }
        return v;
    }

    /** Number of entries of an object field ({@code id2label}), or -1 when absent. */
    public int objectSize(String key) {
        JsonNode n = field(key, false);
        if (n == null) {
            return -1;
        }
        if (!n.isObject()) {
            throw wrongType(key, n, "an object");
        }
        return n.size();
    }

    /** A positive integer, checked. */
    public int requirePositiveInt(String key) {
        int v = requireInt(key);
        if (v <= 0) {
            throw new CheckpointException(file + ": field '" + key + "' = " + v + " must be positive");
        }
        return v;
    }

    public CheckpointException invalid(String message) {
        return new CheckpointException(file + ": " + message);
    }
}
