package dev.polyhe.launcher;

import dev.polyhe.api.he.HeBackend;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.bench.EncryptedAttentionBenchmark;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe bench attention}: the paper's Table 5 on an HE backend. */
@Command(
        name = "attention",
        mixinStandardHelpOptions = true,
        description = {
            "Normalize encrypted [T, T] score blocks with length-agnostic PowerSoftmax, Taylor exp + "
                    + "Goldschmidt (NEXUS) and normalize-and-square (Cho et al.), same Goldschmidt iterations, and "
                    + "print time, depth, bootstraps and the ratios."
        })
final class BenchAttentionCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    ChainOptions chain;

    @Option(names = "--backend", defaultValue = "ckks-cpu", description = "HE backend (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "--tokens", split = ",", defaultValue = "128", description = "Token counts T, comma separated.")
    int[] tokens;

    @Option(
            names = "--iterations",
            defaultValue = "21",
            description = "Goldschmidt iterations for every mechanism (default: ${DEFAULT-VALUE}, as the paper).")
    int iterations;

    @Option(names = "--seed", defaultValue = "7")
    long seed;

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
        if (tokens.length == 0 || Arrays.stream(tokens).anyMatch(t -> t < 2)) {
            throw new ErrorReport.InputException("--tokens needs counts >= 2, got " + Arrays.toString(tokens));
        }
        try (PolyHe polyhe = PolyHe.builder().pluginsDir(common.pluginsDir).build()) {
            HeBackend he = polyhe.plugins().backend(backend);
            int maxTokens = Arrays.stream(tokens).max().orElseThrow();
            int minLogN = ChainOptions.minLogN(maxTokens);
            var bench = new EncryptedAttentionBenchmark(polyhe.plugins());
            var params = chain.resolve(he, minLogN, bench.levelsNeeded(iterations), false);
            var err = spec.commandLine().getErr();
            if (chain.defaultChoice != null) {
                err.println("polyhe bench attention: " + chain.defaultChoice);
            }
            var report = bench.run(he, params, tokens, iterations, seed, step -> {
                err.println("polyhe bench attention: " + step);
                err.flush();
            });
            var out = spec.commandLine().getOut();
            out.print(
                    format == Format.json
                            ? OutputJson.REPORTS.valueToTree(report).toPrettyString() + "\n"
                            : report.toText());
            out.flush();
        }
        return PolyHeCommand.OK;
    }
}
