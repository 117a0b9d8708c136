package dev.polyhe.launcher;

import dev.polyhe.api.Options;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.InsecureParametersException;
import dev.polyhe.api.model.CheckpointException;
import dev.polyhe.core.Plugins;
import dev.polyhe.core.config.ConfigException;
import dev.polyhe.core.plugin.PluginLoadException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.Locale;
import picocli.CommandLine;

/** Turns exceptions into one clear line on stderr and an exit code; the stack trace only with --verbose. */
final class ErrorReport implements CommandLine.IExecutionExceptionHandler {

    /**
     * 2 for what the user can fix in their command, config, plugins, parameters or input files (a refused HE
     * parameter set, a foreign or corrupted ciphertext file, a chain too short for the circuit); 1 otherwise.
     */
    static int exitCode(Throwable e) {
        if (e instanceof ConfigException
                || e instanceof PluginLoadException
                || e instanceof CheckpointException
                || e instanceof Plugins.UnknownPluginException
                || e instanceof Plugins.UnavailablePluginException
                || e instanceof Options.InvalidOptionException
                || e instanceof InputException
                || e instanceof NoSuchFileException
                || e instanceof InsecureParametersException
                || e instanceof HeException
                || e instanceof CommandLine.ParameterException) {
            return PolyHeCommand.USAGE;
        }
        if (e instanceof UncheckedIOException u && u.getCause() instanceof NoSuchFileException) {
            return PolyHeCommand.USAGE;
        }
        return PolyHeCommand.FAILURE;
    }

    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        boolean verbose = parsed.hasMatchedOption("--verbose")
                || parsed.subcommands().stream().anyMatch(p -> p.hasMatchedOption("--verbose"));
        var err = cmd.getErr();
        err.println(prefix(cmd) + message(e));
        if (verbose) {
            e.printStackTrace(err);
        } else if (exitCode(e) == PolyHeCommand.FAILURE && outOfMemory(e) == null) {
            err.println("(run with --verbose for the stack trace)");
        }
        err.flush();
        return exitCode(e);
    }

    private static String prefix(CommandLine cmd) {
        return cmd.getParent() == null ? "polyhe: " : cmd.getCommandSpec().qualifiedName() + ": ";
    }

    static String message(Throwable e) {
        OutOfMemoryError oom = outOfMemory(e);
        if (oom != null) {
            return outOfMemoryMessage(oom, Runtime.getRuntime().maxMemory());
        }
        String m = e.getMessage();
        if (e instanceof NoSuchFileException) {
            return "file not found: " + m;
        }
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    /** The OutOfMemoryError in the chain of causes (a worker thread's arrives wrapped), or null. */
    static OutOfMemoryError outOfMemory(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof OutOfMemoryError oom) {
                return oom;
            }
        }
        return null;
    }

    /** One line: what ran out, the heap this JVM had, and how to give more. */
    static String outOfMemoryMessage(OutOfMemoryError e, long maxHeapBytes) {
        String what = e.getMessage() == null || e.getMessage().isBlank() ? "memory" : e.getMessage();
        return String.format(
                Locale.ROOT,
                "out of memory (%s) with a Java heap of at most %.1f GiB; give the JVM "
                        + "more with POLYHE_JAVA_OPTS=-Xmx<size> (e.g. -Xmx16g; ./polyhe otherwise takes "
                        + "POLYHE_HEAP_PERCENT, default 75, of the machine's memory), or run a "
                        + "smaller preset or fewer tokens",
                what,
                maxHeapBytes / (double) (1L << 30));
    }

    static int usage(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        cmd.getErr().println(prefix(cmd) + e.getMessage());
        cmd.getErr()
                .println("Try 'polyhe " + (cmd.getParent() == null ? "" : cmd.getCommandName() + " ")
                        + "--help' for usage.");
        return PolyHeCommand.USAGE;
    }

    /** A malformed input file or argument detected by a command. */
    static final class InputException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        InputException(String message) {
            super(message);
        }
    }
}
