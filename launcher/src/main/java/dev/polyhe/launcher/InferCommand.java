package dev.polyhe.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.Matrix;
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
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
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
@Command(name = "infer", mixinStandardHelpOptions = true,
        description = {"Run a Hugging Face checkpoint (gpt_neox, roberta, vit) on a batch of inputs, exactly "
                + "(--engine plain) or with every non-polynomial step approximated (--engine poly, reports the "
                + "max/mean error against the exact model; per layer with --verbose)."})
final class InferCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    ModelOptions model;

    @Option(names = "--engine", paramLabel = "plain|poly",
            description = "plain: the exact model; poly: the polynomial model (default: the config's, else plain).")
    String engine;

    @Option(names = "--output", paramLabel = "OUT.json",
            description = "Write last_hidden_state and logits (nested lists) with their shapes (and the poly errors).")
    Path output;

    @Option(names = "--calibration", paramLabel = "CAL.json",
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
            default -> throw new ErrorReport.InputException("--engine '" + engine + "' is not known; allowed: plain, poly");
        };
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (PolyHe polyhe = model.open(common)) {
            InferenceService service = model.service(polyhe);
            Engine kind = engine(service.config());
            LoadedModel loaded = service.load(model.model);
            List<ModelInput> inputs = model.inputs();
            ObjectNode json = JSON.createObjectNode();
            json.put("model_type", loaded.modelType());
            json.put("engine", kind.label());
            json.put("attention", service.exactNonlinearities().attentionKernel().describe());
            List<InferenceResult> results;
            try {
                if (kind == Engine.PLAIN) {
                    results = service.runExact(loaded, inputs);
                } else {
                    Calibration cal = calibration(service, loaded, inputs, out);
                    InferenceService.Comparison c = service.compare(loaded, inputs, cal);
                    results = c.polynomial();
                    c.errors().sites().entrySet().stream().filter(e -> e.getKey().endsWith(".attention")).findFirst()
                            .ifPresent(e -> json.put("attention", e.getValue() + " (domain of " + e.getKey() + ")"));
                    report(c.errors(), out);
                    json.set("errors_vs_exact", errors(c.errors()));
                }
            } catch (InvalidInputException e) {
                throw new ErrorReport.InputException(e.getMessage());
            }
            putOutputs(json, loaded, results);
            out.printf("%s (%s engine, %s): %d sample(s), last_hidden_state %s, logits %s, depth %d%n",
                    loaded.modelType(), kind.label(), json.get("attention").asText(), results.size(),
                    json.get("last_hidden_state_shape"), json.get("logits_shape"),
                    results.stream().mapToInt(InferenceResult::maxDepth).max().orElse(0));
            if (output != null) {
                write(json, output);
                out.println("wrote " + output);
            }
            out.flush();
        }
        return PolyHeCommand.OK;
    }

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Calibration calibration(InferenceService service, LoadedModel loaded, List<ModelInput> inputs,
            PrintWriter out) {
        Path file = calibration != null ? calibration
                : service.config().calibration() != null ? Path.of(service.config().calibration()) : null;
        if (file != null) {
            return Calibration.read(file);
        }
        out.printf("no --calibration given: calibrating the domains on the %d input(s) themselves%n", inputs.size());
        return service.calibrate(loaded, inputs);
    }

    private void report(PolynomialErrorReport r, PrintWriter out) {
        out.printf("poly vs exact: last_hidden_state max %.3e mean %.3e; logits max %.3e mean %.3e; depth %d%n",
                r.lastHiddenState().max(), r.lastHiddenState().mean(), r.logits().max(), r.logits().mean(), r.maxDepth());
        if (!r.outOfDomain().isEmpty()) {
            out.println("warning: inputs outside the calibrated domains (values per site): " + r.outOfDomain());
        }
        if (common.verbose) {
            for (int l = 0; l < r.layers().size(); l++) {
                out.printf("  layer %-3d max %.3e mean %.3e%n", l, r.layers().get(l).max(), r.layers().get(l).mean());
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

    /**
     * Stacks the samples as Hugging Face does: last_hidden_state [batch, T, H]; logits [batch, T, vocab] for a
     * causal LM (one row per position) and [batch, labels] for a classifier (one row). Samples of different
     * lengths cannot be stacked: then the shape lists each sample's.
     */
    private static void putOutputs(ObjectNode json, LoadedModel loaded, List<InferenceResult> results) {
        boolean perPosition = loaded.modelType().equals("gpt_neox");
        ArrayNode hidden = json.putArray("last_hidden_state");
        results.forEach(r -> hidden.add(rows(r.lastHiddenState())));
        json.set("last_hidden_state_shape", shape(results.stream().map(InferenceResult::lastHiddenState).toList(), true));
        if (results.get(0).logits() == null) {
            json.putNull("logits");
            json.putNull("logits_shape");
            return;
        }
        ArrayNode logits = json.putArray("logits");
        for (InferenceResult r : results) {
            ArrayNode rows = rows(r.logits());
            logits.add(perPosition || r.logits().rows() > 1 ? rows : rows.get(0));
        }
        json.set("logits_shape", shape(results.stream().map(InferenceResult::logits).toList(),
                perPosition || results.get(0).logits().rows() > 1));
    }

    private static ArrayNode rows(Matrix m) {
        ArrayNode a = JSON.createArrayNode();
        for (int r = 0; r < m.rows(); r++) {
            ArrayNode row = a.addArray();
            for (int c = 0; c < m.cols(); c++) {
                row.add(m.get(r, c));
            }
        }
        return a;
    }

    private static ArrayNode shape(List<Matrix> ms, boolean withRows) {
        ArrayNode s = JSON.createArrayNode();
        boolean uniform = ms.stream().allMatch(m -> m.rows() == ms.get(0).rows() && m.cols() == ms.get(0).cols());
        if (!uniform) {
            ms.forEach(m -> s.addArray().add(m.rows()).add(m.cols()));
            return s;
        }
        s.add(ms.size());
        if (withRows) {
            s.add(ms.get(0).rows());
        }
        s.add(ms.get(0).cols());
        return s;
    }

    private static void write(ObjectNode json, Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                java.nio.file.Files.createDirectories(parent);
            }
            JSON.writeValue(file.toFile(), json);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
