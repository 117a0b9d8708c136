package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import dev.polyhe.core.engine.encrypted.EncryptedParameters;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.LoadedModel;
import dev.polyhe.core.report.LatencyBreakdown;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe eval}: server side, the polynomial model on ciphertexts, with evaluation keys only. */
@Command(
        name = "eval",
        mixinStandardHelpOptions = true,
        description = {
            "Server: run the polynomial model on an encrypted input with the evaluation keys only (the "
                    + "key folder's secret.key is never read), print progress and the latency breakdown."
        })
final class EvalCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    PipelineOptions pipeline;

    @Mixin
    KeyFolderOptions keyFolder;

    @Option(
            names = "--model",
            required = true,
            paramLabel = "DIR",
            description = "Checkpoint folder, or an encrypted model folder from 'polyhe encrypt-model' (its "
                    + "calibration is the default there).")
    Path model;

    @Option(
            names = "--calibration",
            paramLabel = "CAL.json",
            description = "Approximation domains from 'polyhe calibrate' on sample data (default: the config's "
                    + "inference.calibration).")
    Path calibration;

    @Option(names = "--input", required = true, paramLabel = "FILE.ct", description = "Encrypted input (from encrypt).")
    Path input;

    @Option(names = "--output", required = true, paramLabel = "FILE.ct", description = "Encrypted outputs to write.")
    Path output;

    @Option(
            names = "--backend",
            paramLabel = "NAME",
            description =
                    "HE backend to evaluate on, e.g. ckks-cuda (default: the config's inference.backend, else the "
                            + "one the key set names). Keys made with any backend of the same data format serve it.")
    String backend;

    @Option(
            names = "--insecure-test",
            description = "Accept key sets whose parameters are below 128-bit security "
                    + "(tests only): the server's policy, which the client's parameters.json cannot change.")
    boolean acceptInsecure;

    @Mixin
    BreakdownOptions breakdownFiles;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** --calibration, else the config's inference.calibration: the server needs the domains either way. */
    private Calibration calibration(dev.polyhe.core.inference.InferenceService service, boolean encryptedModel) {
        if (calibration != null) {
            return Calibration.read(calibration);
        }
        if (encryptedModel) {
            return Calibration.read(model.resolve(EncryptedModelFolder.CALIBRATION));
        }
        String fromConfig = service.config().calibration();
        if (fromConfig == null) {
            throw new ErrorReport.InputException("eval needs the approximation domains: give --calibration CAL.json "
                    + "(from 'polyhe calibrate') or set inference.calibration in the config");
        }
        return Calibration.read(Path.of(fromConfig));
    }

    @Override
    public Integer call() throws Exception {
        var out = spec.commandLine().getOut();
        BreakdownChart.checkWritable(breakdownFiles.chart);
        try (PolyHe polyhe = pipeline.open(common);
                var keys = keyFolder.server(polyhe, acceptInsecure, backend)) {
            var service = pipeline.service(polyhe, model);
            boolean encryptedModel = EncryptedModelFolder.isEncrypted(model);
            LoadedModel loaded = encryptedModel ? service.loadEncrypted(model) : service.load(model);
            EncryptedParameters parameters = encryptedModel ? EncryptedModelFolder.read(model, keys) : null;
            var contents = EncryptedInference.read(keys, input);
            EncryptedTensor embeddings = contents.tensors().get("embeddings");
            if (embeddings == null) {
                throw new ErrorReport.InputException(
                        input + " holds no 'embeddings' tensor (make it with 'polyhe encrypt')");
            }
            // once the input is read: a refusal stays one line
            spec.commandLine().getErr().println("polyhe eval: attention " + service.describeAttention(true));
            ProgressReport progress = new ProgressReport(
                    spec.commandLine().getErr(), "eval", loaded.model().info().layers());
            EncryptedInference.ServerResult result;
            try {
                result = new EncryptedInference(service)
                        .evaluate(
                                keys,
                                loaded,
                                embeddings,
                                calibration(service, encryptedModel),
                                parameters,
                                step -> progress.step(step.toString(), step.bootstraps()),
                                acc -> progress.follow(acc::currentOperator, acc::bootstrapsSoFar));
            } finally {
                progress.stop();
            }
            Map<String, EncryptedTensor> tensors = new LinkedHashMap<>();
            tensors.put("last_hidden_state", result.output().lastHiddenState());
            if (result.output().logits() != null) {
                tensors.put("logits", result.output().logits());
            }
            EncryptedInference.write(keys, Map.of("model_type", loaded.modelType()), tensors, output);
            LatencyBreakdown breakdown = new LatencyBreakdown(result.accounting(), result.seconds());
            out.print(breakdown.toText());
            if (breakdownFiles.report != null) {
                Files.writeString(breakdownFiles.report, EncryptedRun.reportText(breakdownFiles.report, breakdown));
            }
            BreakdownChart.write(breakdownFiles.chart, breakdown);
            out.println("wrote " + output);
            out.flush();
        }
        return PolyHeCommand.OK;
    }
}
