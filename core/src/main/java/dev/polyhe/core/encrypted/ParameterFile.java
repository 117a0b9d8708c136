package dev.polyhe.core.encrypted;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** CKKS parameters as a small, backend-neutral JSON file a person can read. */
final class ParameterFile {
    private ParameterFile() {}

    static void write(CkksParameters p, Path file) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("logN", p.logN());
        m.put("logQ", p.logQ());
        m.put("logP", p.logP());
        m.put("dnum", p.dnum());
        m.put("logScale", p.logScale());
        m.put("hammingWeight", p.hammingWeight());
        m.put("security", p.security().configName());
        Files.writeString(file, new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(m));
    }

    static CkksParameters read(Path file) throws IOException {
        var root = new ObjectMapper().readTree(Files.readString(file));
        try {
            return new CkksParameters(root.required("logN").intValue(), ints(root.required("logQ")),
                    ints(root.required("logP")), root.required("dnum").intValue(), root.required("logScale").intValue(),
                    root.required("hammingWeight").intValue(),
                    SecurityLevel.fromConfig(root.required("security").asText()));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file + ": " + e.getMessage(), e);
        }
    }

    private static List<Integer> ints(com.fasterxml.jackson.databind.JsonNode array) {
        List<Integer> out = new ArrayList<>();
        array.forEach(n -> out.add(n.intValue()));
        return out;
    }
}
