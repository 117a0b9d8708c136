package dev.polyhe.core.plugin;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.PolyHePlugin;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.FindException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolutionException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Finds plugin providers with {@link ServiceLoader}: in the boot layer (module path and classpath), and in
 * a plugins folder where each jar, or each sub-folder of jars, gets a {@link ModuleLayer} and class loader of
 * its own whose parent is the layer holding the api — so plugins cannot see each other's classes.
 *
 * <p>Refused, with every problem named: a plugin built against another API major version, two providers of
 * the same kind and name, a jar that is not a module, a plugin whose modules do not resolve.
 */
public final class PluginRegistry {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PluginRegistry.class);

    private final List<PluginDescriptor> plugins;
    private final List<ModuleLayer> layers;

    private PluginRegistry(List<PluginDescriptor> plugins, List<ModuleLayer> layers) {
        this.plugins = List.copyOf(plugins);
        this.layers = List.copyOf(layers);
    }

    /** Boot layer only. */
    public static PluginRegistry discover() {
        return discover(null);
    }

    /**
     * Boot layer plus every plugin in {@code pluginsDir} (null or absent folder: boot layer only).
     *
     * @throws PluginLoadException listing every refused plugin
     */
    public static PluginRegistry discover(Path pluginsDir) {
        List<String> problems = new ArrayList<>();
        List<PluginDescriptor> found = new ArrayList<>();
        List<ModuleLayer> layers = new ArrayList<>();
        ClassLoader bootLoader = PluginRegistry.class.getClassLoader();
        for (PluginKind kind : PluginKind.values()) {
            for (PolyHePlugin p : ServiceLoader.load(kind.service(), bootLoader)) {
                found.add(describe(kind, p, "boot", problems));
            }
        }
        if (pluginsDir != null) {
            if (!Files.isDirectory(pluginsDir)) {
                problems.add("plugins folder " + pluginsDir + " does not exist or is not a folder");
            } else {
                for (Path entry : pluginEntries(pluginsDir, problems)) {
                    loadPlugin(entry, found, layers, problems);
                }
            }
        }
        checkDuplicates(found, problems);
        if (!problems.isEmpty()) {
            throw new PluginLoadException(problems);
        }
        found.sort(Comparator.comparing(PluginDescriptor::kind).thenComparing(PluginDescriptor::name));
        LOG.debug(
                "{} plugins found ({} module layers from {})",
                found.size(),
                layers.size(),
                pluginsDir == null ? "no plugins folder" : pluginsDir);
        found.forEach(d -> LOG.debug("  {} {} from {}", d.kind(), d.name(), d.origin()));
        return new PluginRegistry(found, layers);
    }

    public List<PluginDescriptor> plugins() {
        return plugins;
    }

    public List<PluginDescriptor> plugins(PluginKind kind) {
        return plugins.stream().filter(p -> p.kind() == kind).toList();
    }

    /** Providers of one kind by name, typed. */
    public <T extends PolyHePlugin> Map<String, T> providers(Class<T> service) {
        Map<String, T> map = new LinkedHashMap<>();
        for (PluginDescriptor d : plugins) {
            if (d.kind().service() == service) {
                map.put(d.name(), service.cast(d.provider()));
            }
        }
        return map;
    }

    /** The module layers created for plugins-folder plugins (for diagnostics). */
    public List<ModuleLayer> pluginLayers() {
        return layers;
    }

    private static List<Path> pluginEntries(Path dir, List<String> problems) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p ->
                            Files.isDirectory(p) || p.getFileName().toString().endsWith(".jar"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            problems.add("cannot list plugins folder " + dir + ": " + e.getMessage());
            return List.of();
        }
    }

    private static void loadPlugin(
            Path entry, List<PluginDescriptor> found, List<ModuleLayer> layers, List<String> problems) {
        String origin = entry.toString();
        ModuleLayer parent =
                Optional.ofNullable(PolyHeApi.class.getModule().getLayer()).orElse(ModuleLayer.boot());
        if (!PolyHeApi.class.getModule().isNamed()) {
            problems.add("plugin " + origin + " cannot be loaded: the PolyHE api is on the classpath, but plugins "
                    + "folders need it on the module path (--module-path)");
            return;
        }
        ModuleFinder finder = ModuleFinder.of(entry);
        Set<ModuleReference> refs;
        try {
            refs = finder.findAll();
        } catch (FindException e) {
            problems.add("plugin " + origin + " is not a valid module: " + plainCause(e));
            return;
        }
        List<ModuleReference> explicit =
                refs.stream().filter(r -> !r.descriptor().isAutomatic()).toList();
        if (explicit.isEmpty()) {
            problems.add("plugin " + origin + " is not a JPMS module (no module-info.class); a plugin jar must be a "
                    + "named module that 'provides' a PolyHE service");
            return;
        }
        String declared = declaredApiVersion(entry, explicit, problems);
        if (declared != null && !PolyHeApi.compatible(declared)) {
            problems.add("plugin " + origin + " was built against PolyHE API " + declared
                    + " but this runtime provides API " + PolyHeApi.VERSION + " (major versions must match)");
            return;
        }
        Set<String> roots = explicit.stream().map(r -> r.descriptor().name()).collect(Collectors.toSet());
        ModuleLayer layer;
        try {
            Configuration cf = parent.configuration().resolveAndBind(finder, ModuleFinder.of(), roots);
            layer = parent.defineModulesWithOneLoader(cf, PluginRegistry.class.getClassLoader());
        } catch (FindException | ResolutionException | LayerInstantiationException e) {
            problems.add("plugin " + origin + " cannot be resolved: " + plainCause(e));
            return;
        }
        layers.add(layer);
        int before = found.size();
        for (PluginKind kind : PluginKind.values()) {
            ServiceLoader.load(layer, kind.service()).stream()
                    .filter(p -> p.type().getModule().getLayer() == layer)
                    .forEach(p -> {
                        try {
                            found.add(describe(kind, p.get(), origin, problems));
                        } catch (java.util.ServiceConfigurationError e) {
                            problems.add("plugin " + origin + ": provider "
                                    + p.type().getName() + " could not be instantiated: " + plainCause(e));
                        }
                    });
        }
        if (found.size() == before) {
            problems.add("plugin " + origin + " provides no PolyHE service (attention, approximation, he-backend or "
                    + "model); check the 'provides' clauses of its module-info");
        }
    }

    /** The jar manifest's PolyHe-Api-Version of the plugin's explicit modules, if any declares one. */
    private static String declaredApiVersion(Path entry, List<ModuleReference> modules, List<String> problems) {
        for (ModuleReference ref : modules) {
            Optional<URI> location = ref.location();
            if (location.isEmpty() || !"file".equals(location.get().getScheme())) {
                continue;
            }
            Path p = Path.of(location.get());
            if (!Files.isRegularFile(p)) {
                continue;
            }
            try (JarFile jar = new JarFile(p.toFile())) {
                var mf = jar.getManifest();
                String v = mf == null ? null : mf.getMainAttributes().getValue(PolyHeApi.MANIFEST_ATTRIBUTE);
                if (v != null) {
                    return v.strip();
                }
            } catch (IOException e) {
                problems.add("plugin " + entry + ": cannot read " + p + ": " + e.getMessage());
            }
        }
        return null;
    }

    private static PluginDescriptor describe(PluginKind kind, PolyHePlugin p, String origin, List<String> problems) {
        Module m = p.getClass().getModule();
        String moduleName = m.isNamed() ? m.getName() : "unnamed";
        String version = m.isNamed()
                ? m.getDescriptor().rawVersion().orElse(implementationVersion(p))
                : implementationVersion(p);
        String api = p.apiVersion();
        String where = "boot".equals(origin) ? "boot layer" : origin;
        try {
            if (!PolyHeApi.compatible(api)) {
                problems.add(kind.label() + " '" + p.name() + "' (" + where + ") was built against PolyHE API " + api
                        + " but this runtime provides API " + PolyHeApi.VERSION + " (major versions must match)");
            }
        } catch (IllegalArgumentException e) {
            problems.add(kind.label() + " '" + p.name() + "' (" + where + ") declares an invalid API version: "
                    + e.getMessage());
        }
        if (p.name() == null || !p.name().matches("[a-z0-9][a-z0-9_.-]*")) {
            problems.add(kind.label() + " provider " + p.getClass().getName() + " (" + where + ") has name '" + p.name()
                    + "'; names are lower-case letters, digits, '-', '_' and '.'");
        }
        return new PluginDescriptor(kind, p.name(), moduleName, version, origin, api, p.description(), p);
    }

    private static String implementationVersion(PolyHePlugin p) {
        String v = p.getClass().getPackage() == null
                ? null
                : p.getClass().getPackage().getImplementationVersion();
        return v == null ? "unversioned" : v;
    }

    private static void checkDuplicates(List<PluginDescriptor> found, List<String> problems) {
        Map<String, PluginDescriptor> seen = new LinkedHashMap<>();
        for (PluginDescriptor d : found) {
            PluginDescriptor prev = seen.putIfAbsent(d.kind() + "/" + d.name(), d);
            if (prev != null) {
                problems.add("two " + d.kind().label() + " plugins are named '" + d.name() + "': one from "
                        + prev.module() + " (" + prev.origin() + "), one from " + d.module() + " (" + d.origin()
                        + "); remove one of them");
            }
        }
    }

    private static String plainCause(Throwable e) {
        String msg = e.getMessage();
        Throwable c = e.getCause();
        while (c != null) {
            if (c.getMessage() != null) {
                msg = msg + ": " + c.getMessage();
            }
            c = c.getCause();
        }
        return msg;
    }
}
