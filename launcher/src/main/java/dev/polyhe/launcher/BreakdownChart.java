package dev.polyhe.launcher;

import dev.polyhe.core.report.LatencyBreakdown;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The latency breakdown's chart, as its file name asks: PNG for {@code .png} (drawn by {@link BreakdownPng} with
 * java.desktop, which the launcher reads when the runtime has it), SVG otherwise. This class names no java.desktop
 * type, so that a runtime without that module (a jlink image) loads it and writes SVG or JSON reports.
 */
final class BreakdownChart {
    private BreakdownChart() {}

    static void write(Path file, LatencyBreakdown breakdown) {
        if (file == null) {
            return;
        }
        try {
            if (isPng(file)) {
                checkWritable(file);
                Files.write(file, BreakdownPng.draw(breakdown));
            } else {
                Files.writeString(file, breakdown.toSvg());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Refuses, before any work, a chart this runtime could not write after it (a PNG without java.desktop). */
    static void checkWritable(Path file) {
        if (file != null
                && isPng(file)
                && ModuleLayer.boot().findModule("java.desktop").isEmpty()
                && BreakdownChart.class.getModule().isNamed()) {
            throw new ErrorReport.InputException("--chart " + file + ": PNG charts need the java.desktop module, "
                    + "which this Java runtime lacks; write an .svg chart instead");
        }
    }

    private static boolean isPng(Path file) {
        return file.toString().toLowerCase(Locale.ROOT).endsWith(".png");
    }
}
