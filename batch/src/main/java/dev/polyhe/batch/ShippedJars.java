package dev.polyhe.batch;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * What a cluster's executors need and lack, found in this JVM: the batch module's own code and every entry of the
 * class and module paths that is not one of Spark's runtime jars ({@value #SPARK_LIST}, written at build time). A
 * class folder (a development build, a test) is packed into a temporary jar, since Spark ships jars only.
 */
final class ShippedJars {
    static final String SPARK_LIST = "spark-runtime.list";

    private ShippedJars() {}

    /** The jars for {@code spark.jars}, the batch module's first. */
    static List<Path> ofThisJvm() throws IOException {
        Set<Path> entries = new LinkedHashSet<>();
        try {
            entries.add(Path.of(BatchCommand.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI()));
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("cannot tell where dev.polyhe.batch was loaded from", e);
        }
        for (String property : List.of("java.class.path", "jdk.module.path")) {
            for (String entry : System.getProperty(property, "").split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    entries.add(Path.of(entry).toAbsolutePath().normalize());
                }
            }
        }
        return select(List.copyOf(entries), sparkJarNames());
    }

    /** Keeps the jars not named in {@code sparkJars} and packs the folders; skips what does not exist. */
    static List<Path> select(List<Path> entries, Set<String> sparkJars) throws IOException {
        List<Path> jars = new ArrayList<>();
        for (Path e : entries) {
            if (Files.isDirectory(e)) {
                jars.add(pack(e));
            } else if (Files.isRegularFile(e)
                    && e.getFileName().toString().endsWith(".jar")
                    && !sparkJars.contains(e.getFileName().toString())) {
                jars.add(e);
            }
        }
        return jars;
    }

    static Set<String> sparkJarNames() throws IOException {
        try (InputStream in = ShippedJars.class.getResourceAsStream(SPARK_LIST)) {
            if (in == null) {
                throw new IllegalStateException("dev/polyhe/batch/" + SPARK_LIST + " is missing from the batch jar: "
                        + "build it with Maven (mvn package), which lists Spark's runtime jars there");
            }
            Set<String> names = new LinkedHashSet<>();
            for (String entry : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("[:;,\\s]+")) {
                if (!entry.isBlank()) {
                    names.add(entry.substring(Math.max(entry.lastIndexOf('/'), entry.lastIndexOf('\\')) + 1));
                }
            }
            return names;
        }
    }

    /** A class folder as a temporary jar, deleted when the JVM exits. */
    static Path pack(Path folder) throws IOException {
        Path jar = Files.createTempFile("polyhe-" + folder.getFileName() + "-", ".jar");
        jar.toFile().deleteOnExit();
        try (OutputStream out = Files.newOutputStream(jar);
                JarOutputStream zip = new JarOutputStream(out);
                Stream<Path> files = Files.walk(folder)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                zip.putNextEntry(new JarEntry(folder.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, zip);
                zip.closeEntry();
            }
        }
        return jar;
    }
}
