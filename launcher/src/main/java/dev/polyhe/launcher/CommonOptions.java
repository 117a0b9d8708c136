package dev.polyhe.launcher;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Options every command that builds a {@link dev.polyhe.core.PolyHe} shares. */
final class CommonOptions {
    @Option(names = "--plugins-dir", paramLabel = "DIR",
            description = "Folder of extra plugin jars (each jar or sub-folder in a module layer of its own).")
    Path pluginsDir;

    @Option(names = "--verbose", description = "Print stack traces and per-layer detail.")
    boolean verbose;
}
