package dev.polyhe.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Named options of one plugin instance ({@code p=4}, {@code epsilon=0.001}), as read from a config file or
 * the command line. Typed getters fail with a message naming the option, the bad value and what is allowed;
 * {@link #requireOnly} turns an unknown key into an error instead of ignoring it.
 *
 * @param owner what the options belong to, for messages (e.g. {@code "attention 'power-softmax'"})
 */
public record Options(String owner, Map<String, String> values) {
    public Options {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    public static Options empty(String owner) {
        return new Options(owner, Map.of());
    }

    public Options with(String key, Object value) {
        Map<String, String> copy = new LinkedHashMap<>(values);
        copy.put(key, String.valueOf(value));
        return new Options(owner, copy);
    }

    /** Fails if any key is not in {@code allowed}, listing the allowed ones. */
    public Options requireOnly(Set<String> allowed) {
        for (String key : values.keySet()) {
            if (!allowed.contains(key)) {
                throw new InvalidOptionException(owner + ": unknown option '" + key + "'; allowed: "
                        + String.join(", ", new TreeSet<>(allowed)));
            }
        }
        return this;
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    public String getString(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }

    public double getDouble(String key, double fallback) {
        String v = values.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            double d = Double.parseDouble(v.strip());
            if (!Double.isFinite(d)) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw new InvalidOptionException(owner + ": option '" + key + "' = '" + v + "' is not a finite number");
        }
    }

    public int getInt(String key, int fallback) {
        String v = values.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new InvalidOptionException(owner + ": option '" + key + "' = '" + v + "' is not an integer");
        }
    }

    public boolean getBoolean(String key, boolean fallback) {
        String v = values.get(key);
        if (v == null) {
            return fallback;
        }
        return switch (v.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default ->
                throw new InvalidOptionException(
                        owner + ": option '" + key + "' = '" + v + "' is not a boolean (true or false)");
        };
    }

    /** A double in [min, max] (inclusive), or the fallback. */
    public double getDouble(String key, double fallback, double min, double max) {
        double d = getDouble(key, fallback);
        if (d < min || d > max) {
            throw new InvalidOptionException(owner + ": option '" + key + "' = " + values.get(key)
                    + " is out of range; allowed: " + min + " .. " + max);
        }
        return d;
    }

    /** An int in [min, max] (inclusive), or the fallback. */
    public int getInt(String key, int fallback, int min, int max) {
        int i = getInt(key, fallback);
        if (i < min || i > max) {
            throw new InvalidOptionException(owner + ": option '" + key + "' = " + values.get(key)
                    + " is out of range; allowed: " + min + " .. " + max);
        }
        return i;
    }

    /** Thrown for an unknown, malformed or out-of-range option. */
    public static final class InvalidOptionException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public InvalidOptionException(String message) {
            super(message);
        }
    }
}
