package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.inference.LoadedModel;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe encrypt}: client side, tokens or pixels to an encrypted, packed embedding. */
@Command(
        name = "encrypt",
        mixinStandardHelpOptions = true,
        description = "Client: embed one input (token lookup or patch unfolding) and encrypt it for the server.")
final class EncryptCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    ModelOptions model;

    @Mixin
    KeyFolderOptions keyFolder;

    @Option(names = "--sample", defaultValue = "0", description = "Which sample of the input batch (default: 0).")
    int sample;

    @Option(names = "--output", required = true, paramLabel = "FILE.ct", description = "Encrypted input to write.")
    Path output;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        try (PolyHe polyhe = model.open(common);
                var keys = keyFolder.client(polyhe)) {
            var service = model.service(polyhe);
            LoadedModel loaded = service.load(model.model);
            var inputs = model.inputs(loaded.model());
            if (sample < 0 || sample >= inputs.size()) {
                throw new ErrorReport.InputException(
                        "--sample " + sample + " is outside the batch of " + inputs.size());
            }
            var ct = new EncryptedInference(service).encrypt(keys, loaded.model(), inputs.get(sample));
            EncryptedInference.write(keys, Map.of("model_type", loaded.modelType()), Map.of("embeddings", ct), output);
            spec.commandLine()
                    .getOut()
                    .printf(
                            "encrypted %d tokens x %d features (%d ciphertexts) -> %s%n",
                            ct.rows(), ct.cols(), ct.ciphertexts().length, output);
            spec.commandLine().getOut().flush();
        }
        return PolyHeCommand.OK;
    }
}
