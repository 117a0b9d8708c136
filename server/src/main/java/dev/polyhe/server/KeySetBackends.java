package dev.polyhe.server;

import dev.polyhe.api.he.HeBackend;
import dev.polyhe.core.PolyHe;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which backend of this server reads an uploaded key set's files: the server's own ({@code --backend}), else one of
 * the key set's data format, else the one that made it, the first that is here.
 */
final class KeySetBackends {
    private static final Logger LOG = LoggerFactory.getLogger(KeySetBackends.class);

    private final PolyHe polyhe;
    private final String serverBackend;

    /** @param serverBackend the backend every job evaluates on ({@code --backend}), or null */
    KeySetBackends(PolyHe polyhe, String serverBackend) {
        this.polyhe = polyhe;
        this.serverBackend = serverBackend;
    }

    /** @return the backend, or null when none here reads the key set's data format */
    HeBackend of(Properties keySet) {
        List<String> names = new ArrayList<>();
        if (serverBackend != null) {
            names.add(serverBackend);
        }
        String made = keySet.getProperty("backend", "").trim();
        String format = keySet.getProperty("data-format", made).trim();
        names.add(format);
        names.add(made);
        for (String name : names) {
            try {
                HeBackend b = polyhe.backend(name);
                if (b.name().equals(made) || b.dataFormat().equals(format)) {
                    return b;
                }
            } catch (RuntimeException unavailable) {
                // not here: the next
            }
        }
        LOG.debug("no backend here reads key sets of {}", names);
        return null;
    }

    PolyHe polyhe() {
        return polyhe;
    }
}
