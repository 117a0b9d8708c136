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
import picocli.CommandLine;

/** Turns exceptions into one clear line on stderr and an exit code; the stack trace only with --verbose. */
final class ErrorReport implements CommandLine.IExecutionExceptionHandler {

    /**
     * 2 for what the user can fix in their command, config, plugins, parameters or input files (a refused HE
     * parameter set, a foreign or corrupted ciphertext file, a chain too short for the circuit); 1 otherwise.
     */
    static int exitCode(Throwable e) {
        if (e instanceof ConfigException || e instanceof PluginLoadException || e instanceof CheckpointException
                || e instanceof Plugins.UnknownPluginException || e instanceof Options.InvalidOptionException
                || e instanceof InputException || e instanceof NoSuchFileException
                || e instanceof InsecureParametersException || e instanceof HeException
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
        } else if (exitCode(e) == PolyHeCommand.FAILURE) {
            err.println("(run with --verbose for the stack trace)");
        }
        err.flush();
        return exitCode(e);
    }

    private static String prefix(CommandLine cmd) {
        return cmd.getParent() == null ? "polyhe: " : cmd.getCommandSpec().qualifiedName() + ": ";
    }

    static String message(Throwable e) {
        String m = e.getMessage();
        if (e instanceof NoSuchFileException) {
            return "file not found: " + m;
        }
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    static int usage(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        cmd.getErr().println(prefix(cmd) + e.getMessage());
        cmd.getErr().println("Try 'polyhe " + (cmd.getParent() == null ? "" : cmd.getCommandName() + " ")
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
