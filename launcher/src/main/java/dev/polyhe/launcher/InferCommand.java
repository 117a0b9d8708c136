package dev.polyhe.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.config.InferenceConfig;
import dev.polyhe.core.config.InferenceConfig.Engine;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.ErrorStats;
import dev.polyhe.core.inference.InferenceResult;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.InvalidInputException;
import dev.polyhe.core.inference.LoadedModel;
import dev.polyhe.core.inference.PolynomialErrorReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code polyhe infer}: runs a checkpoint on a batch of inputs with the exact model ({@code plain}) or the
 * polynomial one ({@code poly}, every approximation applied, no encryption), and with {@code poly} reports the
 * error against the exact model.
 */
@Command(
        name = "infer",
        mixinStandardHelpOptions = true,
        description = {
            "Run a Hugging Face checkpoint (gpt_neox, roberta, vit) on a batch of inputs, exactly "
                    + "(--engine plain), with every non-polynomial step approximated (--engine poly, reports the "
                    + "max/mean error against the exact model; per layer with --verbose), or that polynomial model on "
                    + "encrypted data (--engine ckks: keys, encryption, evaluation and decryption in one process; "
                    + "reports error_vs_poly and error_vs_exact and the latency breakdown)."
        })
final class InferCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    ModelOptions model;

    @Option(
            names = "--engine",
            paramLabel = "plain|poly|ckks",
            description = "plain: the exact model; poly: the polynomial model; ckks: the polynomial model on "
                    + "encrypted data, client and server in one process (default: the config's, else plain).")
    String engine;

    @Option(
            names = "--backend",
            defaultValue = "ckks-cpu",
            description = "HE backend of the ckks engine (default: ${DEFAULT-VALUE}).")
    String backend;

    @Mixin
    ChainOptions chain;

    @Option(
            names = "--max-tokens",
            paramLabel = "T",
            description = "ckks: size the keys for T tokens (as 'keys generate --max-tokens' does) when T is more "
                    + "than the input has: the rows beyond the input's tokens are padding, as when deployed.")
    Integer maxTokens;

    @Mixin
    BreakdownOptions breakdownFiles;

    @Mixin
    TraceOptions trace;

    @Option(
            names = "--output",
            paramLabel = "OUT.json",
            description = "Write last_hidden_state and logits (nested lists) with their shapes (and the poly errors).")
    Path output;

    @Option(
            names = "--calibration",
            paramLabel = "CAL.json",
            description = "Domains of the poly engine (from 'polyhe calibrate'); without it the poly engine "
                    + "calibrates on the inputs themselves.")
    Path calibration;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    private Engine engine(InferenceConfig config) {
        if (engine == null) {
            return config.engine();
        }
        return switch (engine.toLowerCase(Locale.ROOT)) {
            case "plain" -> Engine.PLAIN;
            case "poly" -> Engine.POLY;
            case "ckks" -> Engine.CKKS;
            default ->
                throw new ErrorReport.InputException(
                        "--engine '" + engine + "' is not known; allowed: plain, poly, ckks");
        };
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        BreakdownChart.checkWritable(breakdownFiles.chart);
        try (PolyHe polyhe = model.open(common)) {
            Engine kind = engine(polyhe.inference().config());
            InferenceService service = model.service(polyhe);
            LoadedModel loaded = service.load(model.model);
            List<ModelInput> inputs = model.inputs(loaded.model());
            ObjectNode json = JSON.createObjectNode();
            json.put("model_type", loaded.modelType());
            json.put("engine", kind.label());
            json.put(
                    "attention", service.exactNonlinearities().attentionKernel().describe());
            // which mechanism runs and why: the checkpoint's, --attention, the config; softmax approximated or not
            String attention = service.describeAttention(kind != Engine.PLAIN);
            json.put("attention_choice", attention);
            if (trace.requested() && kind != Engine.CKKS) {
                throw new ErrorReport.InputException("--trace-errors traces the ckks engine; add --engine ckks");
            }
            if (maxTokens != null && (kind != Engine.CKKS || maxTokens < 1)) {
                throw new ErrorReport.InputException(
                        kind != Engine.CKKS
                                ? "--max-tokens sizes the keys of the ckks engine; add --engine ckks"
                                : "--max-tokens must be >= 1, got " + maxTokens);
            }
            if (trace.explainPlan && kind != Engine.CKKS) {
                throw new ErrorReport.InputException("--explain-plan plans the ckks engine; add --engine ckks");
            }
            // once the options are checked: a refusal stays one line
            spec.commandLine().getErr().println("polyhe infer: attention " + attention);
            List<InferenceResult> results;
            try {
                if (kind == Engine.PLAIN) {
                    results = service.runExact(loaded, inputs);
                } else if (kind == Engine.CKKS) {
                    Calibration cal = calibration(service, loaded, inputs, out);
                    InferenceService.Comparison c = service.compare(loaded, inputs, cal);
                    report(c.errors(), out);
                    EncryptedRun run = trace.apply(new EncryptedRun(
                            polyhe,
                            service,
                            chain,
                            backend,
                            out,
                            spec.commandLine().getErr()));
                    if (maxTokens != null) {
                        run.keysFor(maxTokens);
                    }
                    if (trace.explainPlan) {
                        run.explain(loaded, inputs, cal, c, json);
                        if (output != null) {
                            OutputJson.write(json, output);
                        }
                        return PolyHeCommand.OK;
                    }
                    results = run.run(loaded, inputs, cal, c, json, breakdownFiles.report, breakdownFiles.chart);
                } else {
                    Calibration cal = calibration(service, loaded, inputs, out);
                    InferenceService.Comparison c = service.compare(loaded, inputs, cal);
                    results = c.polynomial();
                    c.errors().sites().entrySet().stream()
                            .filter(e -> e.getKey().endsWith(".attention"))
                            .findFirst()
                            .ifPresent(e -> json.put("attention", e.getValue() + " (domain of " + e.getKey() + ")"));
                    report(c.errors(), out);
                    json.set("errors_vs_exact", errors(c.errors()));
                }
            } catch (InvalidInputException e) {
                throw new ErrorReport.InputException(e.getMessage());
            }
            OutputJson.putOutputs(
                    json,
                    loaded.modelType(),
                    results.stream().map(InferenceResult::lastHiddenState).toList(),
                    results.get(0).logits() == null
                            ? null
                            : results.stream().map(InferenceResult::logits).toList());
            out.printf(
                    "%s (%s engine, %s): %d sample(s), last_hidden_state %s, logits %s, depth %d%n",
                    loaded.modelType(),
                    kind.label(),
                    json.get("attention").asText(),
                    results.size(),
                    json.get("last_hidden_state_shape"),
                    json.get("logits_shape"),
                    results.stream().mapToInt(InferenceResult::maxDepth).max().orElse(0));
            if (output != null) {
                OutputJson.write(json, output);
                out.println("wrote " + output);
            }
            out.flush();
        }
        return PolyHeCommand.OK;
    }

    private static final ObjectMapper JSON = OutputJson.MAPPER;

    private Calibration calibration(
            InferenceService service, LoadedModel loaded, List<ModelInput> inputs, PrintWriter out) {
        Path file = calibration != null
                ? calibration
                : service.config().calibration() != null
                        ? Path.of(service.config().calibration())
                        : null;
        if (file != null) {
            return Calibration.read(file);
        }
        out.printf("no --calibration given: calibrating the domains on the %d input(s) themselves%n", inputs.size());
        return service.calibrate(loaded, inputs);
    }

    private void report(PolynomialErrorReport r, PrintWriter out) {
        out.printf(
                "poly vs exact: last_hidden_state max %.3e mean %.3e; logits max %.3e mean %.3e; depth %d%n",
                r.lastHiddenState().max(),
                r.lastHiddenState().mean(),
                r.logits().max(),
                r.logits().mean(),
                r.maxDepth());
        if (!r.outOfDomain().isEmpty()) {
            out.println("warning: inputs outside the calibrated domains (values per site): " + r.outOfDomain());
        }
        if (common.verbose) {
            for (int l = 0; l < r.layers().size(); l++) {
                out.printf(
                        "  layer %-3d max %.3e mean %.3e%n",
                        l, r.layers().get(l).max(), r.layers().get(l).mean());
            }
            r.sites().forEach((site, what) -> out.printf("  %-45s %s%n", site, what));
        }
    }

    private static ObjectNode errors(PolynomialErrorReport r) {
        ObjectNode e = JSON.createObjectNode();
        e.set("last_hidden_state", stats(r.lastHiddenState()));
        e.set("logits", stats(r.logits()));
        ArrayNode layers = e.putArray("layers");
        r.layers().forEach(s -> layers.add(stats(s)));
        e.put("max_depth", r.maxDepth());
        ObjectNode outside = e.putObject("out_of_domain");
        r.outOfDomain().forEach(outside::put);
        return e;
    }

    private static ObjectNode stats(ErrorStats s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("max", s.max());
        n.put("mean", s.mean());
        return n;
    }
}
