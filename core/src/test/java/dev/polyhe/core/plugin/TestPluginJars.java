package dev.polyhe.core.plugin;

import dev.polyhe.api.PolyHeApi;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/** Compiles small plugin modules from source at test time and packs them into jars. */
final class TestPluginJars {
    private TestPluginJars() {}

    /** Where the api module lives (its jar or classes folder), for compiling against it. */
    static Path apiLocation() throws Exception {
        return Path.of(PolyHeApi.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    }

    /** An attention mechanism plugin named {@code mechanism} in module {@code module}. */
    static Map<String, String> attentionPlugin(String module, String mechanism, String apiVersionExpr) {
        String pkg = module;
        return Map.of(
                "module-info.java",
                "module " + module + " { requires dev.polyhe.api; provides "
                        + "dev.polyhe.api.attention.AttentionMechanism with " + pkg + ".Echo; }",
                pkg.replace('.', '/') + "/Echo.java",
                "package " + pkg + ";\n"
                        + "import dev.polyhe.api.*; import dev.polyhe.api.approx.*; import "
                        + "dev.polyhe.api.attention.*;\n"
                        + "import dev.polyhe.api.arith.TensorOps; import java.util.Set;\n"
                        + "public final class Echo implements AttentionMechanism {\n"
                        + "  public String name() { return \"" + mechanism + "\"; }\n"
                        + "  public String apiVersion() { return " + apiVersionExpr + "; }\n"
                        + "  public Set<String> optionNames() { return Set.of(); }\n"
                        + "  public AttentionKernel create(Options o, Approximations a) {\n"
                        + "    o.requireOnly(optionNames());\n"
                        + "    return new AttentionKernel() {\n"
                        + "      public String describe() { return \"echo\"; }\n"
                        + "      public boolean polynomial() { return true; }\n"
                        + "      public <M> M normalize(TensorOps<M> ops, M s, Matrix mask) { return s; }\n"
                        + "    };\n  }\n}\n");
    }

    /** Compiles {@code sources} (path → text) as one module and writes a jar with extra manifest attributes. */
    static Path jar(
            Path dir,
            String jarName,
            Map<String, String> sources,
            Map<String, String> manifest,
            String moduleVersion,
            Path... extraModulePath)
            throws Exception {
        StringBuilder mp = new StringBuilder(apiLocation().toString());
        for (Path p : extraModulePath) {
            mp.append(java.io.File.pathSeparator).append(p);
        }
        Path work = Files.createTempDirectory("polyhe-plugin-build");
        try {
            return compileAndPack(work, dir, jarName, sources, manifest, moduleVersion, mp.toString());
        } finally {
            // nothing is left behind in the system's temporary folder
            try (Stream<Path> walk = Files.walk(work)) {
                for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static Path compileAndPack(
            Path work,
            Path dir,
            String jarName,
            Map<String, String> sources,
            Map<String, String> manifest,
            String moduleVersion,
            String modulePath)
            throws Exception {
        Path src = Files.createDirectories(work.resolve("src"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        List<String> args =
                new ArrayList<>(List.of("--release", "17", "-d", classes.toString(), "--module-path", modulePath));
        if (moduleVersion != null) {
            args.addAll(List.of("--module-version", moduleVersion));
        }
        for (var e : sources.entrySet()) {
            Path f = src.resolve(e.getKey());
            Files.createDirectories(f.getParent() == null ? src : f.getParent());
            Files.writeString(f, e.getValue());
            args.add(f.toString());
        }
        var javac = java.util.spi.ToolProvider.findFirst("javac")
                .orElseThrow(() ->
                        new IllegalStateException("javac is not in the test JVM (add --add-modules jdk.compiler)"));
        StringWriter out = new StringWriter();
        var pw = new java.io.PrintWriter(out);
        boolean ok = javac.run(pw, pw, args.toArray(String[]::new)) == 0;
        if (!ok) {
            throw new IllegalStateException("test plugin did not compile:\n" + out);
        }
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.forEach((k, v) -> mf.getMainAttributes().putValue(k, v));
        Path jar = dir.resolve(jarName);
        try (OutputStream os = Files.newOutputStream(jar);
                JarOutputStream jos = new JarOutputStream(os, mf);
                Stream<Path> files = Files.walk(classes)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                jos.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
                Files.copy(p, jos);
                jos.closeEntry();
            }
        }
        return jar;
    }

    static void writePlainJar(Path jar) throws IOException {
        try (OutputStream os = Files.newOutputStream(jar);
                JarOutputStream jos = new JarOutputStream(os)) {
            jos.putNextEntry(new JarEntry("readme.txt"));
            jos.write("not a module".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            jos.closeEntry();
        }
    }
}
