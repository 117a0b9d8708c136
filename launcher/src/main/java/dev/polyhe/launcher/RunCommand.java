package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code polyhe run CONFIG}: runs the workload a config describes. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = "Run the pipeline a config file (YAML or JSON) describes.")
final class RunCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Parameters(paramLabel = "CONFIG", description = "The config file (.yaml, .yml or .json).")
    Path config;

    enum Format {
        text,
        json
    }

    @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE}).")
    Format format;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        try (PolyHe polyhe = PolyHe.builder()
                .configFile(config)
                .pluginsDir(common.pluginsDir)
                .build()) {
            if (!polyhe.config().declaresWorkload()) {
                throw new ErrorReport.InputException(config + " says nothing for 'polyhe run' to do: it has no "
                        + "'workload' and no 'benchmark' section (set 'workload: attention-benchmark'); an 'inference' "
                        + "section is run by 'polyhe infer --config " + config + "'");
            }
            var out = spec.commandLine().getOut();
            var report = polyhe.runAttentionBenchmark();
            out.print(
                    format == Format.json
                            ? OutputJson.REPORTS.valueToTree(report).toPrettyString() + "\n"
                            : report.toText());
            out.flush();
        }
        return PolyHeCommand.OK;
    }
}
