package dev.polyhe.attention;

import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.approx.PolynomialApproximator;
import dev.polyhe.core.plugin.PluginRegistry;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The host's side in tests: approximators found as services by core's {@link PluginRegistry} (the module that
 * declares {@code uses}; this plugin does not, as it never loads services itself), never imported.
 */
public final class ServiceApproximations implements Approximations {
    private static final Map<String, PolynomialApproximator> BY_NAME =
            PluginRegistry.discover().providers(PolynomialApproximator.class);

    @Override
    public PolynomialApproximator approximator(String name) {
        PolynomialApproximator a = BY_NAME.get(name);
        if (a == null) {
            throw new IllegalArgumentException(
                    "unknown approximator '" + name + "'; known: " + String.join(", ", names()));
        }
        return a;
    }

    @Override
    public Set<String> names() {
        return new TreeSet<>(BY_NAME.keySet());
    }
}
