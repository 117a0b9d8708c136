package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.engine.encrypted.NoiseFlooding;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe decrypt}: client side, the server's encrypted outputs to the JSON {@code infer} writes. */
@Command(
        name = "decrypt",
        mixinStandardHelpOptions = true,
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

    @Option(
            names = "--flood-bits",
            paramLabel = "S",
            defaultValue = "0",
            description = "Noise flooding for "
                    + "results that may be shared (Li-Micciancio): Gaussian noise for S bits of statistical security; "
                    + "costs about S/2 + 2 bits of precision. 30 is the usual choice; default ${DEFAULT-VALUE} (off): "
                    + "results that stay with the client need none. See docs/security.md.")
    int floodBits;

    @Option(
            names = "--flood-queries",
            paramLabel = "Q",
            description = "With --flood-bits: the decryptions of "
                    + "related ciphertexts a recipient may see (default 1); sigma grows with sqrt(Q).")
    Integer floodQueries;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    private static void putFlooding(com.fasterxml.jackson.databind.node.ObjectNode node, NoiseFlooding.Applied a) {
        node.put("error_estimate", a.errorEstimate());
        node.put("sigma", a.sigma());
        node.put("precision_bits_lost", a.bitsLost());
    }

    @Override
    public Integer call() throws Exception {
        if (floodQueries != null && floodBits == 0) {
            throw new ErrorReport.InputException("--flood-queries applies only with --flood-bits S (S > 0)");
        }
        NoiseFlooding flooding;
        try {
            flooding = new NoiseFlooding(floodBits, floodQueries == null ? 1 : floodQueries);
        } catch (IllegalArgumentException e) {
            throw new ErrorReport.InputException("--flood-bits/--flood-queries: " + e.getMessage());
        }
        try (PolyHe polyhe = PolyHe.builder().pluginsDir(common.pluginsDir).build();
                var keys = keyFolder.client(polyhe)) {
            var contents = EncryptedInference.read(keys, input);
            EncryptedTensor hidden = contents.tensors().get("last_hidden_state");
            if (hidden == null) {
                throw new ErrorReport.InputException(
                        input + " holds no 'last_hidden_state' (make it with 'polyhe eval')");
            }
            var enc = new EncryptedInference(polyhe.inference());
            var random = new SecureRandom();
            var h = enc.decrypt(keys, hidden, flooding, random);
            EncryptedTensor logitsCt = contents.tensors().get("logits");
            var logits = logitsCt == null ? null : enc.decrypt(keys, logitsCt, flooding, random);
            var json = OutputJson.MAPPER.createObjectNode();
            String modelType = contents.metadata().getOrDefault("model_type", "unknown");
            json.put("model_type", modelType);
            json.put("engine", "ckks");
            OutputJson.putOutputs(
                    json, modelType, List.of(h.values()), logits == null ? null : List.of(logits.values()));
            if (flooding.enabled()) {
                var f = json.putObject("noise_flooding");
                f.put("statistical_bits", flooding.statisticalBits());
                f.put("queries", flooding.queries());
                putFlooding(f.putObject("last_hidden_state"), h.flooding());
                if (logits != null) {
                    putFlooding(f.putObject("logits"), logits.flooding());
                }
            }
            OutputJson.write(json, output);
            var out = spec.commandLine().getOut();
            out.println("decrypted last_hidden_state " + json.get("last_hidden_state_shape")
                    + (logits == null ? "" : " and logits " + json.get("logits_shape")) + " -> " + output);
            if (flooding.enabled()) {
                out.printf(
                        "noise flooding (s = %d bits, %d queries): last_hidden_state sigma %.3g (%.1f bits)%s%n",
                        flooding.statisticalBits(),
                        flooding.queries(),
                        h.flooding().sigma(),
                        h.flooding().bitsLost(),
                        logits == null
                                ? ""
                                : String.format(
                                        ", logits sigma %.3g (%.1f bits)",
                                        logits.flooding().sigma(),
                                        logits.flooding().bitsLost()));
            }
            spec.commandLine().getOut().flush();
        }
        return PolyHeCommand.OK;
    }
}
