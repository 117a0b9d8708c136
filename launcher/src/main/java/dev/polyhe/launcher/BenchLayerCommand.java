package dev.polyhe.launcher;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.Matrix;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.bench.RandomCheckpoint;
import dev.polyhe.core.encrypted.OutputAgreement;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.InvalidInputException;
import dev.polyhe.core.inference.LoadedModel;
import dev.polyhe.core.inference.ModelInputs;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code polyhe bench layer}: a GPT-NeoX of a named shape with random weights, encrypted end to end like {@code
 * infer --engine ckks}, reporting the time of each transformer block beside the whole run's latency breakdown.
 */
@Command(
        name = "layer",
        mixinStandardHelpOptions = true,
        description = {
            "Time transformer blocks of a model shape (random weights, GPT-NeoX) on encrypted data: keys, "
                    + "encryption, the encrypted forward with its latency breakdown, "
                    + "decryption, and the agreement with "
                    + "the plaintext polynomial model. Shapes: pythia-70m (hidden 512, 8 "
                    + "heads, FFN 2048), tiny (hidden "
                    + "8, 2 heads, FFN 16). The paper's anchor: Pythia-70M, 6 layers, 93 s on an A100."
        })
final class BenchLayerCommand implements Callable<Integer> {
    /** The paper's figure for all six Pythia-70M layers on an A100 GPU (Table 4), seconds. */
    static final double PAPER_PYTHIA_70M_SECONDS = 93;

    @Mixin
    CommonOptions common;

    @Mixin
    ChainOptions chain;

    @Mixin
    PipelineOptions pipeline;

    @Option(names = "--shape", defaultValue = "pythia-70m", description = "Model shape (default: ${DEFAULT-VALUE}).")
    String shape;

    @Option(names = "--tokens", defaultValue = "128", description = "Tokens of the input (default: ${DEFAULT-VALUE}).")
    int tokens;

    @Option(names = "--layers", defaultValue = "1", description = "Transformer blocks (default: ${DEFAULT-VALUE}).")
    int layers;

    @Option(
            names = "--vocab",
            paramLabel = "V",
            description = "Vocabulary of the LM head (default: the shape's; "
                    + "pythia-70m: 50304). The head is one wide matmul after the last block: a "
                    + "small V times the blocks alone.")
    Integer vocab;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "Seed of the weights and the input (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--backend", defaultValue = "ckks-cpu", description = "HE backend (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(
            names = "--encrypted-weights",
            description = "Encrypt the weights too, as 'polyhe encrypt-model' does (the paper's App. H): every linear "
                    + "map a product of ciphertexts, each weight stored once.")
    boolean encryptedWeights;

    @Mixin
    TraceOptions trace;

    @Mixin
    BreakdownOptions breakdownFiles;

    enum Format {
        text,
        json
    }

    @Option(
            names = "--format",
            defaultValue = "text",
            description = "text or json: the whole report as one JSON object on stdout (default: ${DEFAULT-VALUE}).")
    Format format;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter stdout = spec.commandLine().getOut();
        boolean asJson = format == Format.json;
        // with --format json stdout carries the JSON object alone
        PrintWriter out = asJson ? new PrintWriter(java.io.Writer.nullWriter()) : stdout;
        BreakdownChart.checkWritable(breakdownFiles.chart);
        if (layers < 1) {
            throw new ErrorReport.InputException("--layers " + layers + " must be at least 1");
        }
        RandomCheckpoint.Shape s;
        try {
            s = RandomCheckpoint.shape(shape).withLayers(layers);
            if (vocab != null) {
                s = s.withVocab(vocab);
            }
        } catch (IllegalArgumentException e) {
            throw new ErrorReport.InputException("--shape: " + e.getMessage());
        }
        if (tokens < 1) {
            throw new ErrorReport.InputException("--tokens " + tokens + " must be at least 1");
        }
        Path dir = Files.createTempDirectory("polyhe-bench-layer-");
        try (PolyHe polyhe = pipeline.open(common)) {
            RandomCheckpoint.write(dir, s, seed);
            Path input = Files.writeString(dir.resolve("input.json"), RandomCheckpoint.randomInput(s, tokens, seed));
            InferenceService service = pipeline.service(polyhe);
            LoadedModel loaded = service.load(dir);
            List<ModelInput> inputs;
            try {
                inputs = ModelInputs.read(input, loaded.model());
            } catch (InvalidInputException e) {
                throw new ErrorReport.InputException(e.getMessage());
            }
            out.printf(
                    Locale.ROOT,
                    "bench layer: shape %s (hidden %d, %d heads, FFN %d), %d block(s), %d tokens, "
                            + "vocabulary %d, random weights (seed %d)%n",
                    s.name(),
                    s.hidden(),
                    s.heads(),
                    s.ffn(),
                    s.layers(),
                    tokens,
                    s.vocab(),
                    seed);
            out.flush();
            Calibration cal = service.calibrate(loaded, inputs);
            InferenceService.Comparison plain = service.compare(loaded, inputs, cal);
            printMargins(out, plain.polynomial().get(0).logits());
            ObjectNode json = OutputJson.MAPPER.createObjectNode();
            EncryptedRun run = trace.apply(new EncryptedRun(
                            polyhe,
                            service,
                            chain,
                            backend,
                            out,
                            spec.commandLine().getErr()))
                    .encryptedWeights(encryptedWeights);
            if (trace.explainPlan) {
                long boots = run.explain(loaded, inputs, cal, plain, json).get(0);
                if (asJson) {
                    ObjectNode plan = OutputJson.MAPPER.createObjectNode();
                    plan.put("shape", s.name())
                            .put("layers", s.layers())
                            .put("vocab", s.vocab())
                            .put("tokens", tokens)
                            .put("seed", seed)
                            .put("bootstraps", boots);
                    plan.setAll(json);
                    stdout.println(plan.toPrettyString());
                    stdout.flush();
                }
                return PolyHeCommand.OK;
            }
            run.run(loaded, inputs, cal, plain, json, breakdownFiles.report, breakdownFiles.chart);
            double[] blocks = run.blockSeconds().get(0);
            double sum = 0;
            for (int i = 0; i < blocks.length; i++) {
                out.printf(Locale.ROOT, "block %d: %.1f s%n", i, blocks[i]);
                sum += blocks[i];
            }
            double perBlock = sum / blocks.length;
            out.printf(
                    Locale.ROOT,
                    "per block: %.1f s; the paper: %.1f s per Pythia-70M layer (%.0f s for 6 on an " + "A100)%s%n",
                    perBlock,
                    PAPER_PYTHIA_70M_SECONDS / 6,
                    PAPER_PYTHIA_70M_SECONDS,
                    s.name().equals("pythia-70m") && tokens == 128 ? "" : " (at another shape or length)");
            out.printf(
                    Locale.ROOT,
                    "vs poly: mse %.3e, same prediction %s%n",
                    json.get("error_vs_poly").get("mse").asDouble(),
                    json.get("error_vs_poly").get("same_prediction").asBoolean());
            out.flush();
            if (asJson) {
                ObjectNode report = OutputJson.MAPPER.createObjectNode();
                report.put("shape", s.name())
                        .put("hidden", s.hidden())
                        .put("heads", s.heads())
                        .put("ffn", s.ffn())
                        .put("layers", s.layers())
                        .put("vocab", s.vocab())
                        .put("tokens", tokens)
                        .put("seed", seed)
                        .put("backend", backend);
                ArrayNode blockJson = report.putArray("block_seconds");
                for (double b : blocks) {
                    blockJson.add(b);
                }
                report.put("seconds_per_block", perBlock);
                report.put("paper_seconds_per_layer", PAPER_PYTHIA_70M_SECONDS / 6);
                report.setAll(json);
                stdout.println(report.toPrettyString());
                stdout.flush();
            }
        } finally {
            deleteTree(dir);
        }
        return PolyHeCommand.OK;
    }

    /**
     * How close the plaintext polynomial model's own top-2 logits are: with random weights and a wide vocabulary some
     * positions are near-ties that any error of that size may flip, and the encrypted run's agreement reads against it.
     */
    private static void printMargins(PrintWriter out, Matrix logits) {
        if (logits == null || logits.cols() < 2) {
            return;
        }
        double[] m = OutputAgreement.topMargins(logits);
        double[] sorted = m.clone();
        Arrays.sort(sorted);
        out.printf(
                Locale.ROOT,
                "poly model: top-2 logit margins min %.2e, median %.2e; positions below 1e-3: %d, "
                        + "below 1e-2: %d, of %d%n",
                sorted[0],
                sorted[sorted.length / 2],
                Arrays.stream(m).filter(x -> x < 1e-3).count(),
                Arrays.stream(m).filter(x -> x < 1e-2).count(),
                m.length);
        out.flush();
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // a temporary folder left behind is not worth failing the benchmark for
        }
    }
}
