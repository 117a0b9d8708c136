package dev.polyhe.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A runtime without java.desktop (the device check's jlink image, a server's) must run every command that asks for
 * no PNG. A class that names a java.desktop type in a signature fails to link there, even where the code that uses
 * it never runs (seen: {@code bench layer --report x.json} died with NoClassDefFoundError java/awt/image/
 * RenderedImage after the whole layer had run), so only {@link BreakdownPng} may name one.
 */
class BreakdownChartTest {
    @Test
    void onlyThePngDrawerNamesJavaDesktopTypes() throws IOException, URISyntaxException {
        Path classes = Path.of(BreakdownChart.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path launcher = classes.resolve("dev/polyhe/launcher");
        List<String> naming;
        try (Stream<Path> files = Files.walk(launcher)) {
            naming = files.filter(f -> f.toString().endsWith(".class"))
                    .filter(f -> !f.getFileName().toString().startsWith("BreakdownPng"))
                    .filter(BreakdownChartTest::namesJavaDesktop)
                    .map(f -> launcher.relativize(f).toString())
                    .sorted()
                    .toList();
        }
        assertEquals(List.of(), naming, "launcher classes other than BreakdownPng that name java.desktop types");
        assertTrue(
                namesJavaDesktop(launcher.resolve("BreakdownPng.class")),
                "the scan must see the one class that does draw with java.desktop");
    }

    private static boolean namesJavaDesktop(Path classFile) {
        try {
            String constants = new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
            return constants.contains("java/awt/") || constants.contains("javax/imageio/");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
