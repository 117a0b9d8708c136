package dev.polyhe.launcher;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code polyhe bench ...}: benchmarks that measure side by side in one run. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description =
                "Benchmarks: CKKS operations beside OpenFHE, encrypted attention normalization (the paper's Table 5), "
                        + "encrypted transformer blocks of a model shape.",
        subcommands = {
            BenchCkksCommand.class,
            BenchAttentionCommand.class,
            BenchLayerCommand.class,
            BenchLinearCommand.class
        })
final class BenchCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
