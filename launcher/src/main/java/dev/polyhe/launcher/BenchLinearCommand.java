package dev.polyhe.launcher;

import dev.polyhe.api.he.HeBackend;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.bench.LinearBenchmark;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe bench linear}: one linear map with plaintext weights beside the same map with encrypted weights. */
@Command(
        name = "linear",
        mixinStandardHelpOptions = true,
        description = {
            "Time one linear map x·Wᵀ on encrypted activations with the weights in the clear and with the weights "
                    + "encrypted (each weight stored once), alternated in one process: median seconds, key switches, "
                    + "max error, and the encrypted weights' size. Default: Pythia-70M's attention projection "
                    + "(128 tokens, 512 by 512) on a 128-bit chain of N = 2^16 with 4 levels."
        })
final class BenchLinearCommand implements Callable<Integer> {
    enum Format {
        json,
        table
    }

    @Mixin
    CommonOptions common;

    @Mixin
    ChainOptions chain;

    @Option(names = "--backend", defaultValue = "ckks-cpu", description = "HE backend (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "--threads", paramLabel = "T", description = "Worker threads of the backend (default: all cores).")
    Integer threads;

    @Option(names = "--tokens", defaultValue = "128", description = "Tokens (rows of x) (default: ${DEFAULT-VALUE}).")
    int tokens;

    @Option(names = "--in", defaultValue = "512", description = "Inputs (columns of x) (default: ${DEFAULT-VALUE}).")
    int in;

    @Option(names = "--out", defaultValue = "512", description = "Outputs (rows of W) (default: ${DEFAULT-VALUE}).")
    int out;

    @Option(names = "--runs", defaultValue = "3", description = "Timed runs of each (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of x and W (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--format", defaultValue = "table", description = "table or json (default: ${DEFAULT-VALUE}).")
    Format format;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (threads != null && threads < 1) {
            throw new ErrorReport.InputException("--threads must be >= 1, got " + threads);
        }
        if (tokens < 1 || in < 1 || out < 1 || runs < 1) {
            throw new ErrorReport.InputException("--tokens, --in, --out and --runs must be >= 1, got " + tokens + ", "
                    + in + ", " + out + ", " + runs);
        }
        PolyHe.Builder builder = PolyHe.builder().pluginsDir(common.pluginsDir);
        if (threads != null) {
            builder.threads(threads);
        }
        try (PolyHe polyhe = builder.build()) {
            HeBackend he = polyhe.backend(backend);
            int logN = chain.logN != null ? chain.logN : Math.max(16, ChainOptions.minLogN(tokens));
            if (chain.preset == null && chain.levels == null) {
                chain.levels = 4;
            }
            var params = chain.resolve(he, logN, 4, false);
            PrintWriter err = spec.commandLine().getErr();
            var result = new LinearBenchmark(he, params, tokens, in, out, runs, seed).run(err);
            var o = spec.commandLine().getOut();
            o.println(format == Format.json ? result.toJson(OutputJson.MAPPER).toPrettyString() : result.toTable());
            o.flush();
        }
        return PolyHeCommand.OK;
    }
}
