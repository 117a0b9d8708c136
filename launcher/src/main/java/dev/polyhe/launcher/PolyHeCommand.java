package dev.polyhe.launcher;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code polyhe}: the top-level command. Exit codes: 0 success, 2 usage or config error, 1 failure. Errors
 * are one line on stderr; stack traces only with {@code --verbose}.
 */
@Command(
        name = "polyhe",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Transformer inference over CKKS-encrypted data with PowerSoftmax attention.",
        footer = {
            "",
            "Batches on Apache Spark: './polyhe batch --help' from a source checkout (the batch module, kept "
                    + "apart so that this launcher carries no Spark), or spark-submit with batch/target's jars "
                    + "(docs/serving.md)."
        },
        subcommands = {
            DemoCommand.class,
            PluginsCommand.class,
            RunCommand.class,
            BenchCommand.class,
            InferCommand.class,
            CalibrateCommand.class,
            KeysCommand.class,
            EncryptCommand.class,
            EncryptModelCommand.class,
            EvalCommand.class,
            DecryptCommand.class,
            ServeCommand.class,
            RemoteCommand.class,
            CommandLine.HelpCommand.class
        })
public final class PolyHeCommand implements Runnable {
    public static final int OK = 0;
    public static final int FAILURE = 1;
    public static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static int execute(String... args) {
        return execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    /** Runs the command line with the given streams (tests capture them). */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new PolyHeCommand());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExitCodeExceptionMapper(ErrorReport::exitCode);
        cli.setExecutionExceptionHandler(new ErrorReport());
        cli.setParameterExceptionHandler(ErrorReport::usage);
        try {
            return cli.execute(args);
        } catch (OutOfMemoryError e) {
            // picocli hands Errors through: the heap is the one a user can fix, so it gets the one-line report too
            err.println("polyhe: "
                    + ErrorReport.outOfMemoryMessage(e, Runtime.getRuntime().maxMemory()));
            if (java.util.Arrays.asList(args).contains("--verbose")) {
                e.printStackTrace(err);
            }
            err.flush();
            return FAILURE;
        }
    }
}
