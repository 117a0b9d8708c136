package dev.polyhe.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.polyhe.api.he.Availability;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.plugin.PluginDescriptor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe plugins}: every plugin found, with kind, name, module, version and origin. */
@Command(
        name = "plugins",
        mixinStandardHelpOptions = true,
        description = "List the plugins found on the module path and in the plugins folder.")
final class PluginsCommand implements Callable<Integer> {
    enum Format {
        text,
        json
    }

    @Mixin
    CommonOptions common;

    @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE}).")
    Format format;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        try (PolyHe polyhe = PolyHe.builder().pluginsDir(common.pluginsDir).build()) {
            List<PluginDescriptor> plugins = polyhe.pluginList();
            var out = spec.commandLine().getOut();
            if (format == Format.json) {
                List<Map<String, String>> rows =
                        plugins.stream().map(PluginsCommand::row).toList();
                out.println(new ObjectMapper()
                        .enable(SerializationFeature.INDENT_OUTPUT)
                        .writeValueAsString(rows));
            } else {
                String fmt = "%-14s %-32s %-26s %-16s %s%n";
                out.printf(Locale.ROOT, fmt, "KIND", "NAME", "MODULE", "VERSION", "ORIGIN");
                for (PluginDescriptor p : plugins) {
                    out.printf(Locale.ROOT, fmt, p.kind().label(), p.name(), p.module(), p.version(), p.origin());
                }
                for (PluginDescriptor p : plugins) {
                    Availability a = availability(p);
                    if (!a.available()) {
                        out.printf(
                                Locale.ROOT,
                                "%s '%s' is not available here: %s%n",
                                p.kind().label(),
                                p.name(),
                                a.reason());
                    }
                }
            }
            out.flush();
        }
        return PolyHeCommand.OK;
    }

    private static Map<String, String> row(PluginDescriptor p) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("kind", p.kind().label());
        m.put("name", p.name());
        m.put("module", p.module());
        m.put("version", p.version());
        m.put("origin", p.origin());
        Availability a = availability(p);
        m.put("available", String.valueOf(a.available()));
        if (!a.available()) {
            m.put("reason", a.reason());
        }
        return m;
    }

    /** Backends say whether they can run here (a GPU, a driver); every other plugin can. */
    private static Availability availability(PluginDescriptor p) {
        return p.provider() instanceof HeBackend b ? b.availability() : Availability.yes();
    }
}
