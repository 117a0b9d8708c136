package dev.polyhe.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a driver sends a cluster's executors: PolyHE and its libraries, never Spark's own jars. */
class ShippedJarsTest {
    @TempDir
    Path dir;

    @Test
    void keepsWhatSparkLacksAndPacksClassFolders() throws Exception {
        Path classes = Files.createDirectories(dir.resolve("classes/dev/polyhe/x"));
        Files.writeString(classes.resolve("A.class"), "not really a class");
        Path ours = Files.writeString(dir.resolve("picocli-4.7.7.jar"), "");
        Path spark = Files.writeString(dir.resolve("spark-core_2.13-4.2.0.jar"), "");
        Path slf4j = Files.writeString(dir.resolve("slf4j-api-2.0.20.jar"), "");
        List<Path> jars = ShippedJars.select(
                List.of(dir.resolve("classes"), ours, spark, slf4j, dir.resolve("gone.jar")),
                Set.of("spark-core_2.13-4.2.0.jar", "slf4j-api-2.0.20.jar"));
        assertEquals(2, jars.size(), jars.toString());
        try (JarFile packed = new JarFile(jars.get(0).toFile())) {
            assertNotNull(packed.getEntry("dev/polyhe/x/A.class"), "the folder's classes, at their package path");
        }
        assertEquals(ours, jars.get(1));
    }

    @Test
    void thisJvmShipsTheBatchModuleAndItsLibrariesButNotSpark() throws Exception {
        Set<String> spark = ShippedJars.sparkJarNames();
        assertTrue(
                spark.contains("spark-core_2.13-4.2.0.jar") && spark.contains("slf4j-api-2.0.20.jar"),
                spark.toString());
        List<Path> jars = ShippedJars.ofThisJvm();
        try (JarFile first = new JarFile(jars.get(0).toFile())) {
            assertNotNull(first.getEntry("dev/polyhe/batch/BatchCommand.class"), jars.toString());
        }
        List<String> names = jars.stream().map(p -> p.getFileName().toString()).toList();
        assertTrue(names.stream().anyMatch(n -> n.startsWith("picocli-")), names.toString());
        assertTrue(
                names.stream().anyMatch(n -> n.startsWith("polyhe-core-") || n.startsWith("polyhe-classes")),
                names.toString());
        assertFalse(
                names.stream()
                        .anyMatch(n -> n.startsWith("spark-")
                                || n.startsWith("scala-library")
                                || n.startsWith("slf4j-api")
                                || n.startsWith("jackson-databind")),
                names.toString());
    }
}
