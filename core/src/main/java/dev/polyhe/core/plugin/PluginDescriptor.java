package dev.polyhe.core.plugin;

import dev.polyhe.api.PolyHePlugin;

/**
 * One provider found by the registry.
 *
 * @param module the JPMS module name (or "unnamed" for a classpath provider)
 * @param version the module's version, or "unversioned"
 * @param origin where it came from: "boot" (module path or classpath) or the plugin jar/folder path
 */
public record PluginDescriptor(
        PluginKind kind,
        String name,
        String module,
        String version,
        String origin,
        String apiVersion,
        String description,
        PolyHePlugin provider) {

    /** "attention 'power-softmax' from dev.polyhe.attention (boot)". */
    public String label() {
        return kind.label() + " '" + name + "' from " + module + " (" + origin + ")";
    }
}
