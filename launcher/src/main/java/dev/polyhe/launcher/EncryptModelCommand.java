package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.LoadedModel;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe encrypt-model}: the model's owner encrypts its weights for a server that runs it unseen. */
@Command(
        name = "encrypt-model",
        mixinStandardHelpOptions = true,
        description = {
            "Client, the model's owner: encrypt a model's weights under the key set, for a server that runs it "
                    + "without seeing a weight (the paper's App. H). The output folder holds config.json, the "
                    + "calibration, the weights' shapes and magnitudes, and every parameter the server's run takes "
                    + "as ciphertexts; run it with 'polyhe eval --model OUT --keys KEYS'. The keys need column "
                    + "blocks (keys generate --max-columns)."
        })
final class EncryptModelCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    PipelineOptions pipeline;

    @Mixin
    KeyFolderOptions keyFolder;

    @Option(names = "--model", required = true, paramLabel = "DIR", description = "Checkpoint folder, in the clear.")
    Path model;

    @Option(
            names = "--calibration",
            required = true,
            paramLabel = "CAL.json",
            description = "Approximation domains from 'polyhe calibrate' (the server runs the model with them).")
    Path calibration;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Encrypted model folder to write.")
    Path out;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        var err = spec.commandLine().getErr();
        try (PolyHe polyhe = pipeline.open(common);
                var keys = keyFolder.client(polyhe)) {
            var service = pipeline.service(polyhe, model);
            LoadedModel loaded = service.load(model);
            Calibration domains = Calibration.read(calibration);
            long t0 = System.nanoTime();
            var parameters = new EncryptedInference(service)
                    .encryptParameters(keys, loaded, domains, (site, done, total) -> {
                        err.printf(Locale.ROOT, "encrypt-model: %d/%d %s%n", done, total, site);
                        err.flush();
                    });
            var written = EncryptedModelFolder.write(model, domains, keys, parameters, out);
            spec.commandLine()
                    .getOut()
                    .printf(
                            Locale.ROOT,
                            "encrypted %d parameter sites of %s in %.1f s -> %s (%.1f MiB)%n",
                            written.sites(),
                            model,
                            (System.nanoTime() - t0) / 1e9,
                            out,
                            written.bytes() / 1048576.0);
            spec.commandLine().getOut().flush();
        }
        return PolyHeCommand.OK;
    }
}
