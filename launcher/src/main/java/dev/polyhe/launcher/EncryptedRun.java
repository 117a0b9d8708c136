package dev.polyhe.launcher;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.Matrix;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.BlockProgress;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.encrypted.KeySet;
import dev.polyhe.core.encrypted.OutputAgreement;
import dev.polyhe.core.engine.encrypted.EncryptedParameters;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.InferenceResult;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.LoadedModel;
import dev.polyhe.core.report.LatencyBreakdown;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code infer --engine ckks}: the four client/server steps in one process (keys, encrypt, evaluate with the
 * evaluation keys only, decrypt), each output compared with the plaintext polynomial and exact models.
 */
final class EncryptedRun {
    private final PolyHe polyhe;
    private final InferenceService service;
    private final ChainOptions chain;
    private final String backend;
    /** Results (stdout or nowhere); progress and notes go to {@link #err}. */
    private final PrintWriter out;

    private final PrintWriter err;
    /** Per sample, the seconds each transformer block took. */
    private final List<double[]> blockSeconds = new ArrayList<>();
    /** Trace errors step by step ({@code --trace-errors}); the JSON file, if any. */
    private boolean trace;

    private Path traceJson;
    private int keyTokens;
    /** Whether the model's owner encrypts its weights too ({@code bench layer --encrypted-weights}). */
    private boolean encryptedWeights;

    /** The weights encrypted by their owner as well (App. H): see {@link EncryptedInference#encryptParameters}. */
    EncryptedRun encryptedWeights(boolean on) {
        if (on && trace) {
            throw new ErrorReport.InputException("--trace-errors does not run with encrypted weights");
        }
        this.encryptedWeights = on;
        return this;
    }

    EncryptedRun(
            PolyHe polyhe,
            InferenceService service,
            ChainOptions chain,
            String backend,
            PrintWriter out,
            PrintWriter err) {
        this.polyhe = polyhe;
        this.service = service;
        this.chain = chain;
        this.backend = backend;
        this.out = out;
        this.err = err;
    }

    /** Runs every sample with an error trace ({@link EncryptedInference#evaluateTraced}); JSON to the file if given. */
    EncryptedRun traced(Path json) {
        this.trace = true;
        this.traceJson = json;
        return this;
    }

    /**
     * Keys sized for at least {@code tokens} tokens (as {@code keys generate --max-tokens} does), so that a query
     * shorter than its keys runs in padding rows as it does when deployed.
     */
    EncryptedRun keysFor(int tokens) {
        this.keyTokens = tokens;
        return this;
    }

    /** The parameters a run uses, the tokens its keys serve, and whether the chain is shorter than the model. */
    private record Chain(
            dev.polyhe.api.he.HeBackend he,
            dev.polyhe.api.he.CkksParameters params,
            int maxTokens,
            int maxColumns,
            boolean bootstrapping) {}

    private Chain chain(LoadedModel loaded, InferenceService.Comparison plain, String doing) {
        var he = polyhe.backend(backend); // with --threads where given
        int maxTokens = Math.max(
                keyTokens,
                plain.exact().stream()
                        .mapToInt(r -> r.embeddings().rows())
                        .max()
                        .orElse(1));
        int depth = plain.errors().maxDepth();
        int minLogN = ChainOptions.minLogN(maxTokens);
        // The engine spends a few levels beyond the plain depth on aligning scales (about a quarter at most) and,
        // on column blocks, three per block on the masks of multi-head attention.
        int needed = depth + (depth + 3) / 4 + 3 * loaded.model().info().layers();
        var params = chain.resolve(he, minLogN, needed, true);
        if (chain.defaultChoice != null) {
            err.println("ckks: " + chain.defaultChoice);
        }
        // a chain shorter than the model is deep refreshes its ciphertexts by bootstrapping (the engine places them)
        boolean bootstrapping = params.maxLevel() < needed;
        err.printf(
                Locale.ROOT,
                "ckks: %s, N=2^%d, %d levels (the polynomial model needs %d%s), security %s; %s%n",
                he.name(),
                params.logN(),
                params.maxLevel(),
                depth,
                bootstrapping ? "; bootstrapping" : "",
                params.security().configName(),
                doing);
        err.flush();
        var info = loaded.model().info();
        return new Chain(he, params, maxTokens, Math.max(info.hiddenSize(), info.intermediateSize()), bootstrapping);
    }

    /**
     * {@code --explain-plan}: every sample through the engine on a symbolic context (levels and scales only, no keys,
     * no arithmetic), printing where the engine bootstraps and why; nothing is encrypted or decrypted.
     *
     * @return the bootstrap calls of each sample
     */
    List<Long> explain(
            LoadedModel loaded,
            List<ModelInput> inputs,
            Calibration calibration,
            InferenceService.Comparison plain,
            ObjectNode json) {
        Chain c = chain(loaded, plain, "planning (no keys, no arithmetic)");
        EncryptedInference encrypted = new EncryptedInference(service);
        List<Long> boots = new ArrayList<>();
        ArrayNode samples = json.putArray("plans");
        try (var keys = encrypted.planningKeys(c.he(), c.params(), c.maxTokens(), c.maxColumns(), c.bootstrapping())) {
            EncryptedParameters parameters = null;
            if (encryptedWeights) {
                long t0 = System.nanoTime();
                parameters = encrypted.encryptParameters(keys, loaded, calibration, (site, done, total) -> {});
                describe(parameters, keys, (System.nanoTime() - t0) / 1e9, json);
            }
            for (int i = 0; i < inputs.size(); i++) {
                var planned = encrypted.plan(
                        keys, loaded, encrypted.encrypt(keys, loaded.model(), inputs.get(i)), calibration, parameters);
                if (planned == null) {
                    out.printf(Locale.ROOT, "sample %d: the chain holds the whole model: no bootstraps to plan%n", i);
                    boots.add(0L);
                    samples.addObject().put("bootstraps", 0);
                    continue;
                }
                var plan = new dev.polyhe.core.report.PlanExplanation(planned.accounting());
                out.printf(Locale.ROOT, "sample %d: %s%n", i, planned.describe());
                planned.describeTrials().forEach(line -> out.printf(Locale.ROOT, "  %s%n", line));
                out.print(plan.toText());
                out.flush();
                boots.add(planned.bootstraps());
                ObjectNode sample = samples.addObject()
                        .put("bootstraps", planned.bootstraps())
                        .put("greedy_bootstraps", planned.greedyBootstraps())
                        .put("plan", planned.plan().toString());
                sample.set("operators", plan.toJson(OutputJson.MAPPER));
                var workSpan = planned.accounting().workSpan();
                if (workSpan != null) {
                    sample.set("work_span", LatencyBreakdown.workSpanJson(OutputJson.MAPPER, workSpan));
                }
            }
        }
        return boots;
    }

    List<InferenceResult> run(
            LoadedModel loaded,
            List<ModelInput> inputs,
            Calibration calibration,
            InferenceService.Comparison plain,
            ObjectNode json,
            Path report,
            Path chart) {
        Chain c = chain(loaded, plain, "generating keys");
        int depth = plain.errors().maxDepth();
        long keysStart = System.nanoTime();
        EncryptedInference encrypted = new EncryptedInference(service);
        List<InferenceResult> results = new ArrayList<>();
        OutputAgreement vsPoly = null;
        OutputAgreement vsExact = null;
        var info = loaded.model().info();
        ArrayNode traces = OutputJson.MAPPER.createArrayNode();
        ArrayNode samples = json.putArray("ckks_samples");
        try (var keys = encrypted.generateKeys(c.he(), c.params(), c.maxTokens(), c.maxColumns(), c.bootstrapping())) {
            double keySeconds = (System.nanoTime() - keysStart) / 1e9;
            err.printf(Locale.ROOT, "ckks: keys generated in %.1f s%n", keySeconds);
            err.flush();
            json.put("key_generation_seconds", keySeconds);
            EncryptedParameters parameters = null;
            if (encryptedWeights) {
                long t0 = System.nanoTime();
                parameters = encrypted.encryptParameters(keys, loaded, calibration, (site, done, total) -> {});
                describe(parameters, keys, (System.nanoTime() - t0) / 1e9, json);
            }
            for (int i = 0; i < inputs.size(); i++) {
                List<Double> blocks = new ArrayList<>();
                long[] last = {System.nanoTime()};
                ProgressReport bar = new ProgressReport(err, "ckks sample " + i, info.layers());
                java.util.function.Consumer<BlockProgress> progress = step -> {
                    long now = System.nanoTime();
                    blocks.add((now - last[0]) / 1e9);
                    last[0] = now;
                    bar.step(step.toString(), step.bootstraps());
                };
                EncryptedInference.ServerResult result;
                if (trace) {
                    var traced = encrypted.evaluateTraced(
                            keys, loaded, loaded.model().embed(inputs.get(i)), calibration, progress);
                    result = traced.result();
                    out.printf(Locale.ROOT, "ckks sample %d: ", i);
                    out.print(traced.trace().toTable());
                    traces.add(traced.trace().toJson(OutputJson.MAPPER));
                } else {
                    try {
                        result = encrypted.evaluate(
                                keys,
                                loaded,
                                encrypted.encrypt(keys, loaded.model(), inputs.get(i)),
                                calibration,
                                parameters,
                                progress,
                                acc -> bar.follow(acc::currentOperator, acc::bootstrapsSoFar));
                    } finally {
                        bar.stop();
                    }
                }
                blockSeconds.add(
                        blocks.stream().mapToDouble(Double::doubleValue).toArray());
                Matrix hidden = encrypted.decrypt(keys, result.output().lastHiddenState());
                Matrix logits = result.output().logits() == null
                        ? null
                        : encrypted.decrypt(keys, result.output().logits());
                InferenceResult p = plain.polynomial().get(i);
                InferenceResult e = plain.exact().get(i);
                OutputAgreement ap = logits != null
                        ? OutputAgreement.between(logits, p.logits())
                        : OutputAgreement.between(hidden, p.lastHiddenState());
                OutputAgreement ae = logits != null
                        ? OutputAgreement.between(logits, e.logits())
                        : OutputAgreement.between(hidden, e.lastHiddenState());
                vsPoly = vsPoly == null ? ap : vsPoly.combine(ap);
                vsExact = vsExact == null ? ae : vsExact.combine(ae);
                LatencyBreakdown breakdown = new LatencyBreakdown(result.accounting(), result.seconds());
                ObjectNode raised = json.putObject("precision_raised");
                breakdown.precisionRaises().forEach((path, r) -> {
                    ObjectNode n = raised.putObject(path);
                    n.put("ciphertexts", r.ciphertexts());
                    n.put("asked_bits", r.askedBits());
                    n.put("single_bootstrap_bits", r.singleBits());
                });
                out.printf(
                        Locale.ROOT,
                        "ckks sample %d: %.2f s; vs poly: mse %.3e, max %.3e, same prediction %s; "
                                + "vs exact: mse %.3e, max %.3e, same prediction %s%n",
                        i,
                        result.seconds(),
                        ap.mse(),
                        ap.maxAbs(),
                        ap.samePrediction(),
                        ae.mse(),
                        ae.maxAbs(),
                        ae.samePrediction());
                out.printf(Locale.ROOT, "ckks sample %d vs poly: %s%n", i, ap.describePredictions(8));
                if (result.planned() != null) {
                    out.printf(
                            Locale.ROOT,
                            "ckks sample %d: %s%n",
                            i,
                            result.planned().describe());
                }
                out.print(breakdown.toText());
                out.flush();
                ObjectNode sampleJson = samples.addObject();
                if (result.planned() != null) {
                    sampleJson
                            .put("bootstrap_plan", result.planned().plan().toString())
                            .put("planned_bootstraps", result.planned().bootstraps())
                            .put("greedy_bootstraps", result.planned().greedyBootstraps())
                            .put("planning_seconds", result.planned().seconds());
                }
                sampleJson.put("seconds", result.seconds());
                ArrayNode blockJson = sampleJson.putArray("block_seconds");
                blocks.forEach(blockJson::add);
                sampleJson.set("error_vs_poly", agreement(json, ap));
                sampleJson.set("error_vs_exact", agreement(json, ae));
                sampleJson.set("latency_breakdown", breakdown.toJson(OutputJson.MAPPER));
                write(report, reportText(report, breakdown));
                BreakdownChart.write(chart, breakdown);
                results.add(new InferenceResult(p.embeddings(), hidden, logits, List.of(), depth, 0, 0));
            }
        }
        if (traceJson != null) {
            ObjectNode t = OutputJson.MAPPER.createObjectNode();
            t.set("samples", traces);
            OutputJson.write(t, traceJson);
            out.println("wrote the error trace to " + traceJson);
        }
        json.set("error_vs_poly", agreement(json, vsPoly));
        json.set("error_vs_exact", agreement(json, vsExact));
        return results;
    }

    /** Per sample, the seconds each transformer block took (the first block's include nothing before it). */
    List<double[]> blockSeconds() {
        return blockSeconds;
    }

    private static ObjectNode agreement(ObjectNode json, OutputAgreement a) {
        ObjectNode n = json.objectNode();
        n.put("mse", a.mse());
        n.put("max_abs", a.maxAbs());
        n.put("same_prediction", a.samePrediction());
        n.put("positions", a.rows());
        n.put("positions_same", a.rows() - a.flips().size());
        double[] margins = a.referenceMargins();
        Arrays.sort(margins);
        if (margins.length > 0) {
            n.put("reference_margin_min", margins[0]);
            n.put("reference_margin_median", margins[margins.length / 2]);
        }
        ArrayNode rowErrors = n.putArray("position_max_abs");
        for (double e : a.rowMaxAbs()) {
            rowErrors.add(e);
        }
        ArrayNode flips = n.putArray("flips");
        for (OutputAgreement.Flip f : a.flips()) {
            flips.addObject()
                    .put("position", f.row())
                    .put("reference_top", f.referenceTop())
                    .put("actual_top", f.actualTop())
                    .put("reference_gap", f.referenceGap())
                    .put("error_at_reference_top", f.errorAtReferenceTop())
                    .put("error_at_actual_top", f.errorAtActualTop());
        }
        return n;
    }

    /** The latency breakdown for a --report file: JSON for a {@code .json} name, text otherwise. */
    static String reportText(Path file, LatencyBreakdown breakdown) {
        return file != null && file.toString().endsWith(".json")
                ? breakdown.toJson(OutputJson.MAPPER).toPrettyString()
                : breakdown.toText();
    }

    private static void write(Path file, String text) {
        if (file == null) {
            return;
        }
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The encrypted parameters' sites and bytes (each at its level of use; planning keys count the bytes the real
     * ones would hold), on stderr and in the JSON.
     */
    private void describe(EncryptedParameters parameters, KeySet keys, double seconds, ObjectNode json) {
        long bytes = parameters.bytes(keys.context().parameters().ringDegree());
        err.printf(
                Locale.ROOT,
                "ckks: %d parameter sites encrypted in %.1f s (%.1f MiB)%n",
                parameters.sites().size(),
                seconds,
                bytes / 1048576.0);
        err.flush();
        ObjectNode w = json.putObject("encrypted_weights");
        w.put("sites", parameters.sites().size());
        w.put("encrypt_seconds", seconds);
        w.put("bytes", bytes);
    }
}
