package dev.polyhe.server;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/** The server's own folders in a message for a client, replaced by what the client may read instead. */
final class PathRedaction {
    private final Map<String, String> shown = new LinkedHashMap<>();

    /** {@code path} (absolute, normalized) reads as {@code shownAs} in messages. */
    void put(String path, String shownAs) {
        shown.put(path, shownAs);
    }

    /** The message with every known folder replaced (null stays null). */
    String apply(String message) {
        String m = message;
        // the longest first, should one folder lie inside another
        for (String path : shown.keySet().stream()
                .sorted(Comparator.comparingInt(String::length).reversed())
                .toList()) {
            m = m == null ? null : m.replace(path, shown.get(path));
        }
        return m;
    }
}
