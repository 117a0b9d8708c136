package dev.polyhe.launcher;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Options every command that builds a {@link dev.polyhe.core.PolyHe} shares. */
final class CommonOptions {
    /** Set by the distribution's bin/polyhe to its plugins/ folder. */
    static final String PLUGINS_DIR_PROPERTY = "polyhe.plugins.dir";

    @Option(
            names = "--plugins-dir",
            paramLabel = "DIR",
            defaultValue = "${sys:" + PLUGINS_DIR_PROPERTY + "}",
            description = "Folder of extra plugin jars (each jar or sub-folder in a module layer of its own); the "
                    + "distribution scans its plugins/ folder by default.")
    Path pluginsDir;

    @Option(names = "--verbose", description = "Print stack traces and per-layer detail.")
    boolean verbose;
}
