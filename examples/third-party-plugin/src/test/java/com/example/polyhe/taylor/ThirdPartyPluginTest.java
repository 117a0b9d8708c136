package com.example.polyhe.taylor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.PolyHeApi;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Treats this plugin as a user would: packs its jar, drops it into a plugins folder and runs the real
 * {@code polyhe} launcher in a separate JVM, where the plugin is known only through that folder.
 */
class ThirdPartyPluginTest {
    @TempDir
    static Path work;

    static Path launcherTarget;

    @BeforeAll
    static void locateLauncher() {
        launcherTarget = Path.of(System.getProperty("polyhe.launcher.target", "../../launcher/target"));
        assertTrue(
                Files.isDirectory(launcherTarget.resolve("lib")),
                "the launcher's module path " + launcherTarget.resolve("lib") + " is missing: build the reactor "
                        + "with 'mvn verify' (or install), which packages the launcher before this test");
    }

    /** The plugin jar, packed from this module's compiled classes with the given API version in its manifest. */
    static Path pluginJar(Path dir, String apiVersion) throws IOException {
        Path classes = Path.of(System.getProperty("polyhe.example.classes", "target/classes"));
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        mf.getMainAttributes().putValue(PolyHeApi.MANIFEST_ATTRIBUTE, apiVersion);
        Files.createDirectories(dir);
        Path jar = dir.resolve("taylor-softmax-plugin.jar");
        try (OutputStream os = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(os, mf);
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    record Result(int exitCode, String out, String err) {}

    static Result polyhe(String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        String modulePath;
        try (Stream<Path> jars = Files.list(launcherTarget)) {
            Path launcherJar = jars.filter(p -> p.getFileName().toString().matches("polyhe-launcher-.*\\.jar"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no launcher jar in " + launcherTarget));
            modulePath = launcherJar + File.pathSeparator + launcherTarget.resolve("lib");
        }
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Dguice_bytecode_gen_option=DISABLED",
                "--module-path",
                modulePath,
                "--add-modules",
                "ALL-MODULE-PATH",
                "-m",
                "dev.polyhe.launcher/dev.polyhe.launcher.Main"));
        cmd.addAll(List.of(args));
        Path out = work.resolve("out.txt");
        Path err = work.resolve("err.txt");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "polyhe did not finish");
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void theLauncherListsAndRunsThePluginFromAPluginsFolder() throws Exception {
        Path plugins = work.resolve("plugins");
        Path jar = pluginJar(plugins, PolyHeApi.VERSION);

        Result list = polyhe("plugins", "--plugins-dir", plugins.toString(), "--format", "json");
        assertEquals(0, list.exitCode(), list.err());
        String json = list.out().replaceAll("\\s+", "");
        assertTrue(
                json.contains("{\"kind\":\"attention\",\"name\":\"taylor-softmax\",\"module\":"
                                + "\"com.example.polyhe.taylor\",\"version\":\"unversioned\",\"origin\":\"" + jar
                                + "\"}")
                        || json.contains("\"name\":\"taylor-softmax\",\"module\":\"com.example.polyhe.taylor\""),
                json);
        assertTrue(json.contains("\"origin\":\"" + jar + "\""), json);

        Path config = work.resolve("taylor.yaml");
        Files.writeString(config, """
                attention:
                  - name: taylor-softmax
                benchmark: {length: 32, rows: 8, spread: 0.5}
                """, StandardCharsets.UTF_8);
        Result run = polyhe("run", config.toString(), "--plugins-dir", plugins.toString());
        assertEquals(0, run.exitCode(), run.err());
        String row = run.out()
                .lines()
                .filter(l -> l.startsWith("taylor-softmax "))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no taylor-softmax row in:\n" + run.out()));
        String[] cols = row.trim().split("\\s+");
        double maxVsSoftmax = Double.parseDouble(cols[4]);
        assertEquals("no", cols[3], "exact division is not polynomial");
        assertTrue(maxVsSoftmax < 0.02, "second-order Taylor softmax tracks softmax for small scores: " + row);
    }

    @Test
    void aCopyBuiltForTheNextMajorApiIsRefusedNamingBothVersions() throws Exception {
        String next = (PolyHeApi.major(PolyHeApi.VERSION) + 1) + ".0";
        Path plugins = work.resolve("future-plugins");
        pluginJar(plugins, next);
        Result list = polyhe("plugins", "--plugins-dir", plugins.toString());
        assertEquals(2, list.exitCode(), list.out());
        assertTrue(list.err().contains("built against PolyHE API " + next), list.err());
        assertTrue(list.err().contains("provides API " + PolyHeApi.VERSION), list.err());
        assertTrue(!list.err().contains("\tat "), "no stack trace without --verbose: " + list.err());
    }
}
