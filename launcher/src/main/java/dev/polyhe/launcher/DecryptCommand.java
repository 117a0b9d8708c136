package dev.polyhe.launcher;

import dev.polyhe.api.Matrix;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.engine.ckks.CkksTensor;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe decrypt}: client side, the server's encrypted outputs to the JSON {@code infer} writes. */
@Command(name = "decrypt", mixinStandardHelpOptions = true,
        description = "Client: decrypt the server's outputs into last_hidden_state and logits (JSON, as infer writes).")
final class DecryptCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    KeyFolderOptions keyFolder;

    @Option(names = "--input", required = true, paramLabel = "FILE.ct", description = "Encrypted outputs (from eval).")
    Path input;

    @Option(names = "--output", required = true, paramLabel = "OUT.json", description = "JSON to write.")
    Path output;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        try (PolyHe polyhe = PolyHe.builder().pluginsDir(common.pluginsDir).build(); var keys = keyFolder.client(polyhe)) {
            var contents = EncryptedInference.read(keys, input);
            CkksTensor hidden = contents.tensors().get("last_hidden_state");
            if (hidden == null) {
                throw new ErrorReport.InputException(input + " holds no 'last_hidden_state' (make it with 'polyhe eval')");
            }
            var enc = new EncryptedInference(polyhe.inference());
            Matrix h = enc.decrypt(keys, hidden);
            CkksTensor logitsCt = contents.tensors().get("logits");
            Matrix logits = logitsCt == null ? null : enc.decrypt(keys, logitsCt);
            var json = OutputJson.MAPPER.createObjectNode();
            String modelType = contents.metadata().getOrDefault("model_type", "unknown");
            json.put("model_type", modelType);
            json.put("engine", "ckks");
            OutputJson.putOutputs(json, modelType, List.of(h), logits == null ? null : List.of(logits));
            OutputJson.write(json, output);
            spec.commandLine().getOut().println("decrypted last_hidden_state " + json.get("last_hidden_state_shape")
                    + (logits == null ? "" : " and logits " + json.get("logits_shape")) + " -> " + output);
            spec.commandLine().getOut().flush();
        }
        return PolyHeCommand.OK;
    }
}
