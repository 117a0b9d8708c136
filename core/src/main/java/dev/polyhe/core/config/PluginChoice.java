package dev.polyhe.core.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.polyhe.api.Options;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A plugin selected by name, with its options: {@code {name: power-softmax, options: {p: 4}}}.
 * Option values are scalars; the plugin validates them.
 */
public record PluginChoice(String name, Map<String, Object> options) {
    @JsonCreator
    public PluginChoice(
            @JsonProperty(value = "name", required = true) String name,
            @JsonProperty("options") Map<String, Object> options) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name is empty; expected a plugin name");
        }
        Map<String, Object> copy = new LinkedHashMap<>();
        if (options != null) {
            options.forEach((k, v) -> {
                if (v instanceof Map || v instanceof java.util.Collection) {
                    throw new IllegalArgumentException(
                            "option '" + k + "' must be a scalar (number, string or boolean)");
                }
                copy.put(k, v);
            });
        }
        this.name = name.strip();
        this.options = Map.copyOf(copy);
    }

    public static PluginChoice of(String name) {
        return new PluginChoice(name, Map.of());
    }

    public PluginChoice withOption(String key, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>(options);
        copy.put(key, value);
        return new PluginChoice(name, copy);
    }

    /** The options as the api's {@link Options}, owned by {@code "<kind> '<name>'"} for messages. */
    public Options toOptions(String kind) {
        Map<String, String> m = new LinkedHashMap<>();
        options.forEach((k, v) -> m.put(k, String.valueOf(v)));
        return new Options(kind + " '" + name + "'", m);
    }
}
