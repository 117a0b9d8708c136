package dev.polyhe.attention.kernel;

import dev.polyhe.api.Options;
import java.util.Set;
import java.util.TreeSet;

/**
 * Option checks the API's typed getters do not cover, each failing with the option, the value and what is
 * allowed: open-ended ranges, choices, and options that only apply together with another.
 */
public final class OptionRules {
    private OptionRules() {}

    /** Like {@link Options#requireOnly}, with a clear message for mechanisms that take no options. */
    public static Options requireOnly(Options options, Set<String> allowed) {
        if (allowed.isEmpty() && !options.values().isEmpty()) {
            String key = options.values().keySet().iterator().next();
            throw new Options.InvalidOptionException(
                    options.owner() + ": unknown option '" + key + "'; this mechanism takes no options");
        }
        return options.requireOnly(allowed);
    }

    public static double atLeast(Options options, String key, double fallback, double min, String why) {
        double v = options.getDouble(key, fallback);
        if (v < min) {
            throw new Options.InvalidOptionException(options.owner() + ": option '" + key + "' = "
                    + options.values().get(key) + " is out of range; allowed: ≥ " + min + " (" + why + ")");
        }
        return v;
    }

    public static double positive(Options options, String key, double fallback, String why) {
        double v = options.getDouble(key, fallback);
        if (!(v > 0)) {
            throw new Options.InvalidOptionException(options.owner() + ": option '" + key + "' = "
                    + options.values().get(key) + " is out of range; allowed: > 0 (" + why + ")");
        }
        return v;
    }

    public static String choice(Options options, String key, String fallback, Set<String> choices) {
        String v = options.getString(key, fallback).strip();
        if (!choices.contains(v)) {
            throw new Options.InvalidOptionException(options.owner() + ": option '" + key + "' = '" + v
                    + "' is not allowed; allowed: " + String.join(", ", new TreeSet<>(choices)));
        }
        return v;
    }

    /** Fails if {@code key} is set while its precondition does not hold. */
    public static void onlyWith(Options options, String key, boolean precondition, String condition) {
        if (options.has(key) && !precondition) {
            throw new Options.InvalidOptionException(
                    options.owner() + ": option '" + key + "' applies only with " + condition);
        }
    }
}
