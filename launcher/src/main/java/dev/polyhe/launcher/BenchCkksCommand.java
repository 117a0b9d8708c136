package dev.polyhe.launcher;

import dev.polyhe.api.he.HeBackend;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.bench.CkksBenchmark;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe bench ckks}: median time per HE operation, precision, key sizes, peak memory. */
@Command(
        name = "ckks",
        mixinStandardHelpOptions = true,
        description = {
            "Median milliseconds per CKKS operation (ntt, encode, encrypt, decrypt, add, mul_plain, "
                    + "mul_relin, rescale, mul_relin_rescale (the two fused), rotate, "
                    + "rotate_hoisted_8, bootstrap with --op "
                    + "bootstrap), precision bits, key sizes and peak memory, on a preset "
                    + "(N<logN>-128 by default; with "
                    + "--op bootstrap N16-boot-128, or N<logN>-boot-128 when the backend has it) or "
                    + "a chain built like OpenFHE's "
                    + "(--levels, --scale-bits, --dnum), so the figures can be set beside docs/benchmarks.md."
        })
final class BenchCkksCommand implements Callable<Integer> {
    /** The CPU backend's thread-count property (the launcher cannot import the plugin's constant). */
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

    @Option(names = "--op", paramLabel = "bootstrap", description = "Also time this operation (bootstrap).")
    String op;

    @Option(names = "--runs", defaultValue = "7", description = "Timed runs per operation (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--warmup", defaultValue = "3", description = "Untimed runs first (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--format", defaultValue = "table", description = "table or json (default: ${DEFAULT-VALUE}).")
    Format format;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (op != null && !op.equals("bootstrap")) {
            throw new ErrorReport.InputException("--op '" + op + "' is not known; allowed: bootstrap");
        }
        if (threads != null && threads < 1) {
            throw new ErrorReport.InputException("--threads must be >= 1, got " + threads);
        }
        PolyHe.Builder builder = PolyHe.builder().pluginsDir(common.pluginsDir);
        if (threads != null) {
            builder.threads(threads);
        }
        try (PolyHe polyhe = builder.build()) {
            HeBackend he = polyhe.backend(backend);
            boolean boot = "bootstrap".equals(op);
            int logN = chain.logN != null ? chain.logN : boot ? 16 : 14;
            // bootstrapping needs a chain built for it: the backend's N<logN>-boot-128 preset when it has one
            String preset = boot && he.presets().contains("N" + logN + "-boot-128")
                    ? "N" + logN + "-boot-128"
                    : "N" + logN + "-128";
            if (chain.preset == null
                    && chain.levels == null
                    && !chain.chainShapingOptions(false).isEmpty()) {
                throw new ErrorReport.InputException(String.join(", ", chain.chainShapingOptions(false)) + " shape a "
                        + "built chain: add --levels L to build one (without it bench ckks measures the preset "
                        + preset
                        + ")");
            }
            var params = chain.preset == null && chain.levels == null
                    ? he.preset(preset)
                    : chain.resolve(he, logN, 40, false);
            // the threads the backend computes with, which the property asked for but the backend decides
            var result = new CkksBenchmark(he, params, runs, warmup, he.parallelism(), boot).run();
            var out = spec.commandLine().getOut();
            out.println(format == Format.json ? result.toJson(OutputJson.MAPPER).toPrettyString() : result.toTable());
            out.flush();
        }
        return PolyHeCommand.OK;
    }
}
