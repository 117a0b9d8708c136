package dev.polyhe.core.encrypted;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * CKKS parameters as a small, backend-neutral JSON file a person can read. It may come from a client the reader does
 * not trust (a server reads the client's key folder): its size, its keys, their types and the lengths of its lists
 * are checked before any value is used.
 */
public final class ParameterFile {
    /** A parameters.json is well under 2 KiB; a larger file is not one. */
    static final long MAX_BYTES = 64 * 1024;

    private static final Set<String> KEYS =
            Set.of("logN", "logQ", "logP", "dnum", "logScale", "hammingWeight", "security");
    private static final ObjectMapper JSON = new ObjectMapper();

    private ParameterFile() {}

    static void write(CkksParameters p, Path file) throws IOException {
        ObjectNode m = JSON.createObjectNode();
        m.put("logN", p.logN());
        p.logQ().forEach(m.putArray("logQ")::add);
        p.logP().forEach(m.putArray("logP")::add);
        m.put("dnum", p.dnum());
        m.put("logScale", p.logScale());
        m.put("hammingWeight", p.hammingWeight());
        m.put("security", p.security().configName());
        Files.writeString(
                file, JSON.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(m));
    }

    /** @throws ConfigException naming the file, the field, the value and what is allowed */
    public static CkksParameters read(Path file) throws IOException {
        long size = Files.size(file);
        if (size > MAX_BYTES) {
            throw new ConfigException(file + ": " + size + " bytes; a parameters file holds at most " + MAX_BYTES);
        }
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(file));
        } catch (JsonProcessingException e) {
            throw new ConfigException(file + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new ConfigException(file + ": expected a JSON object of CKKS parameters");
        }
        for (var it = root.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!KEYS.contains(key)) {
                throw new ConfigException(file + ": unknown key '" + key + "'; allowed: "
                        + KEYS.stream().sorted().toList());
            }
        }
        try {
            return new CkksParameters(
                    integer(file, root, "logN"),
                    integers(file, root, "logQ", CkksParameters.MAX_Q_PRIMES),
                    integers(file, root, "logP", CkksParameters.MAX_P_PRIMES),
                    integer(file, root, "dnum"),
                    integer(file, root, "logScale"),
                    integer(file, root, "hammingWeight"),
                    SecurityLevel.fromConfig(text(file, root, "security")));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file + ": " + e.getMessage(), e);
        }
    }

    private static JsonNode required(Path file, JsonNode root, String key) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            throw new ConfigException(file + ": '" + key + "' is missing");
        }
        return n;
    }

    private static int integer(Path file, JsonNode root, String key) {
        JsonNode n = required(file, root, key);
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            throw new ConfigException(file + ": '" + key + "' = " + n + " is not an integer");
        }
        return n.intValue();
    }

    private static String text(Path file, JsonNode root, String key) {
        JsonNode n = required(file, root, key);
        if (!n.isTextual()) {
            throw new ConfigException(file + ": '" + key + "' = " + n + " is not a string");
        }
        return n.asText();
    }

    private static List<Integer> integers(Path file, JsonNode root, String key, int max) {
        JsonNode n = required(file, root, key);
        if (!n.isArray()) {
            throw new ConfigException(file + ": '" + key + "' is not a list of bit sizes");
        }
        if (n.size() > max) {
            throw new ConfigException(file + ": '" + key + "' lists " + n.size() + " primes; allowed: at most " + max);
        }
        List<Integer> out = new ArrayList<>();
        for (JsonNode e : n) {
            if (!e.isIntegralNumber() || !e.canConvertToInt()) {
                throw new ConfigException(file + ": '" + key + "' holds " + e + ", not an integer bit size");
            }
            out.add(e.intValue());
        }
        return out;
    }
}
