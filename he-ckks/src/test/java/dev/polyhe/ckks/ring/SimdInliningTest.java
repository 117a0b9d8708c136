package dev.polyhe.ckks.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The JVM options that force C2 to inline the SIMD kernels' vector helpers ({@code config/simd-inlining.args}) name
 * exactly the helpers there are: a helper added, renamed or removed without the list following would let a run fall
 * back, at random, to vectors on the heap (key switching about twice as slow).
 */
class SimdInliningTest {
    private static final Path ARGS = Path.of("..", "config", "simd-inlining.args");
    private static final Path SOURCES = Path.of("src", "main", "java");

    @Test
    void theArgumentFileForcesInliningOfEveryHelperThatPassesAVector() throws Exception {
        assertEquals(helpersPassingVectors(), listedForInlining());
    }

    @Test
    void theArgumentFileKeepsTheJvmQuiet() throws IOException {
        // without it the JVM prints a line per command on standard output, ahead of JSON the CLI writes there
        List<String> options = options();
        assertFalse(options.isEmpty());
        assertEquals("-XX:CompileCommand=quiet", options.get(0));
    }

    /** Class::method for every static method of a Simd* kernel class that takes or returns a vector or mask. */
    private static Set<String> helpersPassingVectors() throws IOException, ClassNotFoundException {
        Set<String> helpers = new TreeSet<>();
        List<Path> kernels;
        try (Stream<Path> files = Files.walk(SOURCES)) {
            kernels = files.filter(p -> p.getFileName().toString().matches("Simd.*\\.java"))
                    .toList();
        }
        assertFalse(kernels.isEmpty(), "no Simd* kernels under " + SOURCES.toAbsolutePath());
        for (Path source : kernels) {
            String name = SOURCES.relativize(source)
                    .toString()
                    .replace(source.getFileSystem().getSeparator(), ".");
            Class<?> kernel = Class.forName(name.substring(0, name.length() - ".java".length()));
            for (Method m : kernel.getDeclaredMethods()) {
                if (Modifier.isStatic(m.getModifiers()) && passesVector(m)) {
                    helpers.add(kernel.getName() + "::" + m.getName());
                }
            }
        }
        return helpers;
    }

    /** A vector, mask or shuffle in or out; arrays of them are tables built once, not helpers in a loop. */
    private static boolean passesVector(Method m) {
        if (isVectorType(m.getReturnType())) {
            return true;
        }
        return Stream.of(m.getParameterTypes()).anyMatch(SimdInliningTest::isVectorType);
    }

    private static boolean isVectorType(Class<?> type) {
        return !type.isArray() && type.getPackageName().equals("jdk.incubator.vector");
    }

    private static Set<String> listedForInlining() throws IOException {
        Set<String> listed = new TreeSet<>();
        for (String option : options()) {
            String prefix = "-XX:CompileCommand=inline,";
            if (option.startsWith(prefix)) {
                listed.add(option.substring(prefix.length()));
            }
        }
        return listed;
    }

    /** The file's options: one a line, comments (#) and blank lines left out. */
    private static List<String> options() throws IOException {
        return Files.readAllLines(ARGS).stream()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
    }
}
