package dev.polyhe.launcher;

import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.model.ModelInfo;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.encrypted.KeyFiles;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe keys generate}: the client's key folder. */
@Command(
        name = "keys",
        mixinStandardHelpOptions = true,
        description = "Key management (client side).",
        subcommands = {KeysCommand.Generate.class})
final class KeysCommand implements Runnable {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(
            name = "generate",
            mixinStandardHelpOptions = true,
            description = {
                "Generate a secret key and the evaluation keys (relinearization, conjugation, the rotations "
                        + "the packing needs, bootstrapping if asked) into a key folder of two halves: KEYS/server/ "
                        + "(parameters, evaluation keys, key-set metadata; nothing secret: give it to the server) and "
                        + "KEYS/client/ (the secret key, owner-only)."
            })
    static final class Generate implements Callable<Integer> {
        @Mixin
        CommonOptions common;

        @Mixin
        ChainOptions chain;

        @Option(names = "--backend", defaultValue = "ckks-cpu", description = "HE backend (default: ${DEFAULT-VALUE}).")
        String backend;

        @Option(
                names = "--max-tokens",
                defaultValue = "16",
                description = "Longest input the keys serve (default: ${DEFAULT-VALUE}).")
        int maxTokens;

        @Option(
                names = "--max-columns",
                defaultValue = "1",
                paramLabel = "H",
                description = "The model's widest activation (hidden or feed-forward size): activations are packed "
                        + "in blocks of up to that many columns per ciphertext, as many as the ring holds "
                        + "(default: ${DEFAULT-VALUE}, one column per ciphertext).")
        int maxColumns;

        @Option(names = "--bootstrapping", description = "Also generate bootstrapping keys.")
        boolean bootstrapping;

        @Option(
                names = "--model",
                paramLabel = "DIR",
                description = "A checkpoint to size the keys for: --max-columns from its widest activation (and "
                        + "--max-tokens from its fixed sequence length, for an image model), unless given.")
        Path model;

        @Option(names = "--out", required = true, paramLabel = "DIR", description = "Key folder to write.")
        Path out;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            if (maxTokens < 1) {
                throw new ErrorReport.InputException("--max-tokens must be >= 1, got " + maxTokens);
            }
            if (maxColumns < 1) {
                throw new ErrorReport.InputException("--max-columns must be >= 1, got " + maxColumns);
            }
            try (PolyHe polyhe = PolyHe.builder().pluginsDir(common.pluginsDir).build()) {
                HeBackend he = polyhe.plugins().backend(backend);
                if (model != null) {
                    sizeFor(polyhe.inference().load(model).model().info());
                }
                int minLogN = ChainOptions.minLogN(maxTokens);
                // without a model the depth is unknown: a chain of 40 levels, or the bootstrapping preset
                var params = chain.resolve(he, minLogN, 40, bootstrapping);
                if (chain.defaultChoice != null) {
                    spec.commandLine().getErr().println("polyhe keys generate: " + chain.defaultChoice);
                }
                long t0 = System.nanoTime();
                try (var keys = new EncryptedInference(polyhe.inference())
                        .generateKeys(he, params, maxTokens, maxColumns, bootstrapping)) {
                    KeyFiles.write(keys, out);
                    var o = spec.commandLine().getOut();
                    o.printf(
                            Locale.ROOT,
                            "key set written to %s in %.1f s: N=2^%d, %d levels, packing %d slots "
                                    + "x %d columns per ciphertext, relinearization key %.1f "
                                    + "MiB, rotation keys %.1f MiB%n",
                            out,
                            (System.nanoTime() - t0) / 1e9,
                            params.logN(),
                            params.maxLevel(),
                            keys.packingSlots(),
                            keys.packing().columnsPerCiphertext(),
                            keys.evaluationKeys().relinearizationKeyBytes() / (double) (1 << 20),
                            keys.evaluationKeys().rotationKeyBytes() / (double) (1 << 20));
                    o.println("give the server " + out.resolve(KeyFiles.SERVER_HALF) + " (nothing secret in it); keep "
                            + out.resolve(KeyFiles.CLIENT_HALF) + " (the secret key, owner-only) on the client");
                    o.flush();
                }
            }
            return PolyHeCommand.OK;
        }

        /** --max-columns and, for a model of fixed length (an image model), --max-tokens from the checkpoint. */
        private void sizeFor(ModelInfo info) {
            var parsed = spec.commandLine().getParseResult();
            if (!parsed.hasMatchedOption("--max-columns")) {
                maxColumns = Math.max(info.hiddenSize(), info.intermediateSize());
            }
            if (!parsed.hasMatchedOption("--max-tokens") && info.modelType().equals("vit")) {
                maxTokens = info.maxTokens();
            }
            spec.commandLine()
                    .getErr()
                    .printf(
                            Locale.ROOT,
                            "polyhe keys generate: sized for %s (%s): up to %d tokens, " + "%d columns%n",
                            model,
                            info.modelType(),
                            maxTokens,
                            maxColumns);
        }
    }
}
