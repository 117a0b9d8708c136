package dev.polyhe.launcher;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where an encrypted run writes its latency breakdown besides the terminal (infer --engine ckks, eval, bench layer).
 */
final class BreakdownOptions {
    @Option(
            names = "--report",
            paramLabel = "FILE.txt|FILE.json",
            description = "Write the encrypted run's latency breakdown (JSON for a .json name, text otherwise).")
    Path report;

    @Option(
            names = "--chart",
            paramLabel = "FILE.svg|FILE.png",
            description = "Write the encrypted run's latency breakdown as a chart: PNG for a .png name, SVG otherwise.")
    Path chart;
}
