package dev.polyhe.launcher;

import dev.polyhe.server.TokenFile;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe serve token add|list|revoke}: the operator's tokens file (hashes only). */
@Command(
        name = "token",
        mixinStandardHelpOptions = true,
        description = "Manage the tenants' bearer tokens of 'polyhe serve --tokens FILE' (the file keeps SHA-256 "
                + "hashes only; a running server reads it again when it changes).",
        subcommands = {TokenCommand.Add.class, TokenCommand.List.class, TokenCommand.Revoke.class})
final class TokenCommand implements Runnable {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(
            name = "add",
            mixinStandardHelpOptions = true,
            description = "Add a token for a tenant and print it, once: it is not kept, only its hash.")
    static final class Add implements Callable<Integer> {
        @Option(names = "--tokens", required = true, paramLabel = "FILE")
        Path file;

        @Option(
                names = "--tenant",
                required = true,
                paramLabel = "NAME",
                description = "The tenant: letters, digits, '.', '_', '-'; its key sets and jobs are its own.")
        String tenant;

        @Option(names = "--admin", description = "The tenant may read /metrics.")
        boolean admin;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            String token;
            try {
                token = TokenFile.add(file, tenant, admin);
            } catch (IllegalArgumentException e) {
                throw new ErrorReport.InputException(e.getMessage());
            }
            spec.commandLine().getOut().println(token);
            spec.commandLine()
                    .getErr()
                    .println("polyhe serve token: added a token for tenant " + tenant + (admin ? " (admin)" : "")
                            + " to " + file + "; it is shown only now");
            return PolyHeCommand.OK;
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "List the tenants and their tokens' " + "hash prefixes.")
    static final class List implements Callable<Integer> {
        @Option(names = "--tokens", required = true, paramLabel = "FILE")
        Path file;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            for (TokenFile.Entry e : TokenFile.read(file)) {
                spec.commandLine()
                        .getOut()
                        .printf(
                                "%s  sha256:%s...%s%n",
                                e.tenant(), e.hash().substring(0, 12), e.admin() ? "  admin" : "");
            }
            return PolyHeCommand.OK;
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Remove every token of a tenant.")
    static final class Revoke implements Callable<Integer> {
        @Option(names = "--tokens", required = true, paramLabel = "FILE")
        Path file;

        @Option(names = "--tenant", required = true, paramLabel = "NAME")
        String tenant;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            int n = TokenFile.revoke(file, tenant);
            if (n == 0) {
                throw new ErrorReport.InputException("no token of tenant " + tenant + " in " + file);
            }
            spec.commandLine().getOut().printf("revoked %d token(s) of tenant %s%n", n, tenant);
            return PolyHeCommand.OK;
        }
    }
}
