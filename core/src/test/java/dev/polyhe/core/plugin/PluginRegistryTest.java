package dev.polyhe.core.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.attention.AttentionMechanism;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginRegistryTest {
    @TempDir
    Path work;

    private Path pluginsDir() throws Exception {
        return Files.createDirectories(work.resolve("plugins"));
    }

    private Path echoJar(Path dir, String jarName, String module, String name, Map<String, String> manifest)
            throws Exception {
        return TestPluginJars.jar(
                dir,
                jarName,
                TestPluginJars.attentionPlugin(module, name, "dev.polyhe.api.PolyHeApi.VERSION"),
                manifest,
                "3.1");
    }

    private static String problems(Path dir) {
        return assertThrows(PluginLoadException.class, () -> PluginRegistry.discover(dir))
                .getMessage();
    }

    @Test
    void findsAPluginJarInItsOwnModuleLayer() throws Exception {
        Path dir = pluginsDir();
        Path jar = echoJar(dir, "echo.jar", "test.echo", "echo", Map.of());
        echoJar(dir, "other.jar", "test.other", "other", Map.of());
        PluginRegistry registry = PluginRegistry.discover(dir);
        PluginDescriptor echo = registry.plugins(PluginKind.ATTENTION).stream()
                .filter(p -> p.name().equals("echo"))
                .findFirst()
                .orElseThrow();
        assertEquals("test.echo", echo.module());
        assertEquals("3.1", echo.version());
        assertEquals(jar.toString(), echo.origin());
        assertEquals(PolyHeApi.VERSION, echo.apiVersion());
        assertTrue(registry.providers(AttentionMechanism.class).containsKey("other"));
        assertEquals(2, registry.pluginLayers().size(), "one layer per plugin jar");
        ClassLoader a = registry.pluginLayers().get(0).findLoader("test.echo");
        ClassLoader b = registry.pluginLayers().get(1).findLoader("test.other");
        assertNotSame(a, b, "each plugin gets its own class loader");
        assertThrows(
                ClassNotFoundException.class,
                () -> Class.forName("test.other.Echo", false, a),
                "a plugin cannot see another plugin's classes");
    }

    @Test
    void aSubFolderOfJarsIsOnePlugin() throws Exception {
        Path sub = Files.createDirectories(pluginsDir().resolve("bundle"));
        echoJar(sub, "a.jar", "test.a", "a", Map.of());
        echoJar(sub, "b.jar", "test.b", "b", Map.of());
        PluginRegistry registry = PluginRegistry.discover(sub.getParent());
        assertEquals(1, registry.pluginLayers().size());
        assertEquals(2, registry.plugins(PluginKind.ATTENTION).size());
    }

    @Test
    void duplicateNamesAreRefusedNamingBothOrigins() throws Exception {
        Path dir = pluginsDir();
        Path one = echoJar(dir, "one.jar", "test.one", "same", Map.of());
        Path two = echoJar(dir, "two.jar", "test.two", "same", Map.of());
        String m = problems(dir);
        assertTrue(m.contains("two attention plugins are named 'same'"), m);
        assertTrue(m.contains(one.toString()) && m.contains(two.toString()), m);
    }

    @Test
    void anotherMajorApiVersionInTheManifestIsRefusedNamingBoth() throws Exception {
        Path dir = pluginsDir();
        String future = (PolyHeApi.major(PolyHeApi.VERSION) + 1) + ".0";
        echoJar(dir, "future.jar", "test.future", "future", Map.of(PolyHeApi.MANIFEST_ATTRIBUTE, future));
        String m = problems(dir);
        assertTrue(m.contains("built against PolyHE API " + future), m);
        assertTrue(m.contains("provides API " + PolyHeApi.VERSION), m);
    }

    @Test
    void anotherMajorApiVersionDeclaredByTheProviderIsRefused() throws Exception {
        Path dir = pluginsDir();
        TestPluginJars.jar(
                dir, "old.jar", TestPluginJars.attentionPlugin("test.old", "old", "\"0.9\""), Map.of(), null);
        String m = problems(dir);
        assertTrue(m.contains("attention 'old'") && m.contains("API 0.9") && m.contains(PolyHeApi.VERSION), m);
    }

    @Test
    void aJarThatIsNotAModuleIsRefused() throws Exception {
        Path dir = pluginsDir();
        TestPluginJars.writePlainJar(dir.resolve("plain.jar"));
        String m = problems(dir);
        assertTrue(m.contains("plain.jar is not a JPMS module"), m);
    }

    @Test
    void anUnresolvableModuleIsRefusedInPlainWords() throws Exception {
        Path dir = pluginsDir();
        Path lib = TestPluginJars.jar(
                work,
                "lib.jar",
                Map.of(
                        "module-info.java",
                        "module org.missing.library " + "{ exports org.missing.library; }",
                        "org/missing/library/Lib.java",
                        "package org.missing.library; public final class Lib {}"),
                Map.of(),
                null);
        Map<String, String> src = new java.util.HashMap<>(
                TestPluginJars.attentionPlugin("test.needy", "needy", "dev.polyhe.api.PolyHeApi.VERSION"));
        src.put(
                "module-info.java",
                "module test.needy { requires dev.polyhe.api; requires org.missing.library; "
                        + "provides dev.polyhe.api.attention.AttentionMechanism with test.needy.Echo; }");
        // Compiled against the library, shipped without it.
        TestPluginJars.jar(dir, "needy.jar", src, Map.of(), null, lib);
        String m = problems(dir);
        assertTrue(m.contains("needy.jar cannot be resolved") && m.contains("org.missing.library"), m);
    }

    @Test
    void aMissingPluginsFolderIsAnError() {
        String m = problems(work.resolve("nowhere"));
        assertTrue(m.contains("does not exist"), m);
    }
}
