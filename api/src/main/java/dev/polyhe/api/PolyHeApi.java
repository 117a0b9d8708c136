package dev.polyhe.api;

/**
 * The version of this API. A plugin returns {@link #VERSION} from {@link PolyHePlugin#apiVersion()}; because
 * the field is a compile-time constant it is inlined into the plugin's class file, so the plugin reports
 * the version it was <em>built</em> against, which the registry compares with the one it runs with.
 * The api jar also carries it as the manifest attribute {@value #MANIFEST_ATTRIBUTE}.
 */
public final class PolyHeApi {
    /**
     * major.minor; a change of major breaks plugins. Kept equal to {@code polyhe.api.version} in the root pom (tested).
     */
    public static final String VERSION = "1.1";

    public static final String MANIFEST_ATTRIBUTE = "PolyHe-Api-Version";

    private PolyHeApi() {}

    /** The major part of a {@code major.minor} version string. */
    public static int major(String version) {
        if (version == null || version.isBlank()) {
            throw new IllegalArgumentException("API version is empty; expected major.minor such as " + VERSION);
        }
        String head = version.strip().split("\\.", 2)[0];
        try {
            return Integer.parseInt(head);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "API version '" + version + "' is not major.minor (e.g. " + VERSION + ")");
        }
    }

    /** Whether a plugin built against {@code pluginVersion} can run with this API. */
    public static boolean compatible(String pluginVersion) {
        return major(pluginVersion) == major(VERSION);
    }
}
