package dev.polyhe.core.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Reads configs from YAML or JSON onto typed records, strictly: unknown keys, duplicate keys, wrong types
 * and out-of-range values are errors whose message names the source, the key path, the value and what is
 * allowed.
 */
public final class ConfigLoader {
    private ConfigLoader() {}

    public static <T> T load(Path file, Class<T> type) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException("config file " + file + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage(), e);
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return parse(text, name.endsWith(".json") ? Format.JSON : Format.YAML, file.toString(), type);
    }

    public static PolyHeConfig load(Path file) {
        return load(file, PolyHeConfig.class);
    }

    /** YAML is a superset of JSON for our purposes, but JSON files get the stricter JSON parser. */
    public enum Format {
        YAML,
        JSON
    }

    public static <T> T parse(String text, Format format, String source, Class<T> type) {
        ObjectMapper mapper = mapper(format);
        try {
            T value = mapper.readValue(text, type);
            if (value == null) {
                throw new ConfigException(source + ": the config is empty");
            }
            return value;
        } catch (JsonMappingException e) {
            if (e.getCause() instanceof JsonProcessingException syntax && !(syntax instanceof JsonMappingException)) {
                throw syntaxError(source, format, syntax);
            }
            throw new ConfigException(source + ": " + describe(e), e);
        } catch (JsonProcessingException e) {
            throw syntaxError(source, format, e);
        }
    }

    private static ConfigException syntaxError(String source, Format format, JsonProcessingException e) {
        String loc = e.getLocation() == null
                ? ""
                : " at line " + e.getLocation().getLineNr() + ", column "
                        + e.getLocation().getColumnNr();
        // YAML parser messages span several lines with source excerpts; keep the sentences only.
        String msg = java.util.Arrays.stream(
                        String.valueOf(e.getOriginalMessage()).split("\\R"))
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("in 'reader'") && !l.equals("^"))
                .collect(java.util.stream.Collectors.joining("; "));
        return new ConfigException(source + ": not valid " + format.name() + loc + ": " + msg, e);
    }

    static ObjectMapper mapper(Format format) {
        var builder = format == Format.JSON ? JsonMapper.builder() : YAMLMapper.builder(new YAMLFactory());
        return builder.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .build();
    }

    /** "benchmark.length: 'abc' is not an integer" and friends. */
    static String describe(JsonMappingException e) {
        String path = path(e);
        String at = path.isEmpty() ? "" : "'" + path + "': ";
        if (e instanceof UnrecognizedPropertyException u) {
            TreeSet<String> known = new TreeSet<>();
            if (u.getKnownPropertyIds() != null) {
                u.getKnownPropertyIds().forEach(k -> known.add(String.valueOf(k)));
            }
            return "unknown key '" + path + "'; allowed here: " + String.join(", ", known);
        }
        if (e instanceof InvalidFormatException f) {
            return at + "value '" + f.getValue() + "' is not " + typeName(f.getTargetType())
                    + allowedValues(f.getTargetType());
        }
        if (e instanceof ValueInstantiationException v) {
            Throwable cause = v.getCause() != null ? v.getCause() : v;
            return at + cause.getMessage();
        }
        if (e instanceof MismatchedInputException m) {
            if (m.getOriginalMessage() != null && m.getOriginalMessage().startsWith("Missing required")) {
                return "missing required key '" + path + "'";
            }
            return at + "wrong type" + offending(m) + ": expected " + typeName(m.getTargetType())
                    + allowedValues(m.getTargetType());
        }
        return at + e.getOriginalMessage();
    }

    /** The text of the token the parser stopped at, when it can tell. */
    private static String offending(MismatchedInputException m) {
        if (m.getProcessor() instanceof JsonParser p) {
            try {
                String text = p.getText();
                if (text != null && !text.isBlank() && !text.equals("{") && !text.equals("[")) {
                    return " '" + text + "'";
                }
            } catch (IOException ignored) {
                // the message is still useful without the value
            }
        }
        // Coercion failures carry the value only in Jackson's own text: 'String value ("abc")'.
        var v = java.util.regex.Pattern.compile("value \\((\"?)(.*?)\\1\\)")
                .matcher(String.valueOf(m.getOriginalMessage()));
        return v.find() ? " '" + v.group(2) + "'" : "";
    }

    private static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    private static String typeName(Class<?> t) {
        if (t == null) {
            return "a different type";
        }
        if (t == int.class || t == Integer.class || t == long.class || t == Long.class) {
            return "an integer";
        }
        if (t == double.class || t == Double.class || t == float.class || t == Float.class) {
            return "a number";
        }
        if (t == boolean.class || t == Boolean.class) {
            return "true or false";
        }
        if (t == String.class) {
            return "a string";
        }
        if (java.util.List.class.isAssignableFrom(t)) {
            return "a list";
        }
        if (java.util.Map.class.isAssignableFrom(t) || t.isRecord()) {
            return "a mapping (key: value)";
        }
        if (t.isEnum()) {
            return "one of the allowed names";
        }
        return "a " + t.getSimpleName();
    }

    private static String allowedValues(Class<?> t) {
        if (t == null || !t.isEnum()) {
            return "";
        }
        TreeSet<String> names = new TreeSet<>();
        for (Object c : t.getEnumConstants()) {
            Enum<?> en = (Enum<?>) c;
            try {
                var f = t.getField(en.name());
                var jp = f.getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
                names.add(jp != null ? jp.value() : en.name());
            } catch (NoSuchFieldException ex) {
                names.add(en.name());
            }
        }
        return " (allowed: " + String.join(", ", names) + ")";
    }
}
