package dev.polyhe.launcher;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.encrypted.EncryptedEngine;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.plugin.PluginKind;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code polyhe demo}: the main job on what the repository ships, in under a minute: the tiny Pythia, exact
 * and polynomial, then PowerSoftmax attention on encrypted scores against the same program in plaintext.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = "Run the shipped tiny Pythia (exact vs polynomial) and encrypted PowerSoftmax attention.")
final class DemoCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Option(
            names = "--model",
            paramLabel = "DIR",
            defaultValue = "models/tiny-pythia",
            description = "Checkpoint folder (default: ${DEFAULT-VALUE}).")
    Path model;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** "1 HE backend", "2 HE backends". */
    private static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (PolyHe polyhe = PolyHe.builder().pluginsDir(common.pluginsDir).build()) {
            out.printf(
                    Locale.ROOT,
                    "PolyHE demo: %s, %s, %s, %s found%n%n",
                    count(polyhe.registry().plugins(PluginKind.ATTENTION).size(), "attention mechanism"),
                    count(polyhe.registry().plugins(PluginKind.APPROXIMATION).size(), "approximator"),
                    count(polyhe.registry().plugins(PluginKind.HE_BACKEND).size(), "HE backend"),
                    count(polyhe.registry().plugins(PluginKind.MODEL).size(), "model architecture"));
            out.flush();
            polynomialModel(polyhe, out);
            encryptedAttention(polyhe, out);
            out.println("Next: ./polyhe infer --model " + model + " --input " + model.resolve("input.json")
                    + " --engine poly --verbose");
            out.println("      ./polyhe bench attention --tokens 32 --insecure-test   (the paper's Table 5)");
            out.println("      ./polyhe --help");
            out.flush();
        }
        return PolyHeCommand.OK;
    }

    /** The shipped checkpoint, exact and with every non-polynomial step approximated. */
    private void polynomialModel(PolyHe polyhe, PrintWriter out) {
        if (!Files.isDirectory(model)) {
            throw new ErrorReport.InputException("model folder " + model + " not found; run the demo from the "
                    + "repository root or pass --model DIR");
        }
        InferenceService service = polyhe.inference()
                .withAttention(new PluginChoice("power-softmax", java.util.Map.of("p", 4, "epsilon", 0.001)));
        var loaded = service.load(model);
        var info = loaded.model().info();
        out.printf(
                Locale.ROOT,
                "1. %s (%s): %d layers, hidden %d, %d heads, vocabulary %d; PowerSoftmax p=4, " + "eps=1e-3%n",
                model,
                loaded.modelType(),
                info.layers(),
                info.hiddenSize(),
                info.heads(),
                info.labels());
        Random rnd = new Random(11);
        List<ModelInput> inputs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long[] ids = new long[8 + 4 * i];
            for (int t = 0; t < ids.length; t++) {
                ids[t] = rnd.nextInt(info.labels());
            }
            inputs.add(ModelInput.tokens(ids));
        }
        var calibration = service.calibrate(loaded, inputs);
        var cmp = service.compare(loaded, inputs, calibration);
        int same = 0;
        int total = 0;
        for (int i = 0; i < inputs.size(); i++) {
            Matrix e = cmp.exact().get(i).logits();
            Matrix p = cmp.polynomial().get(i).logits();
            for (int r = 0; r < e.rows(); r++) {
                same += argmax(e, r) == argmax(p, r) ? 1 : 0;
                total++;
            }
        }
        var errors = cmp.errors();
        out.printf(
                Locale.ROOT,
                "   polynomial model (Goldschmidt 1/sqrt(x) and division, sigmoid GELU, calibrated domains):"
                        + " depth %d%n   logits vs exact: max |err| %.2e, mean |err| %.2e; same "
                        + "next-token prediction at %d of %d"
                        + " positions%n%n",
                errors.maxDepth(),
                errors.logits().max(),
                errors.logits().mean(),
                same,
                total);
        out.flush();
    }

    private static int argmax(Matrix m, int row) {
        int best = 0;
        for (int c = 1; c < m.cols(); c++) {
            if (m.get(row, c) > m.get(row, best)) {
                best = c;
            }
        }
        return best;
    }

    /** A 16 x 16 block of scores, encrypted, through the paper's length-agnostic PowerSoftmax. */
    private void encryptedAttention(PolyHe polyhe, PrintWriter out) {
        int tokens = 16;
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        List<Integer> q = new ArrayList<>(List.of(50));
        q.addAll(Collections.nCopies(20, 40));
        CkksParameters params = new CkksParameters(11, q, List.of(60, 60), 11, 40, 0, SecurityLevel.INSECURE_TEST);
        Random rnd = new Random(3);
        double[] s = new double[tokens * tokens];
        for (int i = 0; i < s.length; i++) {
            s[i] = rnd.nextGaussian();
        }
        // Calibrate the division's domain as the calibrate command would: the rows' mean of x^4, with a margin.
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (int r = 0; r < tokens; r++) {
            double mean = 0;
            for (int c = 0; c < tokens; c++) {
                mean += Math.pow(s[r * tokens + c], 4) / tokens;
            }
            lo = Math.min(lo, mean);
            hi = Math.max(hi, mean);
        }
        AttentionKernel kernel = polyhe.plugins()
                .attention(PluginChoice.of("power-softmax-length-agnostic")
                        .withOption("iterations", 12)
                        .withOption("lo", lo / 2)
                        .withOption("hi", hi * 2));
        Matrix scores = new Matrix(tokens, tokens, s);
        PlainEngine plain = new PlainEngine();
        Matrix expected = kernel.normalize(plain, plain.fromPlain(scores), null).toMatrix();
        try (HeContext ctx = backend.open(params)) {
            SecretKey sk = ctx.generateSecretKey();
            EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Set.of(), false, false);
            EncryptedEngine engine =
                    new EncryptedEngine(ctx, ctx.evaluator(keys), keys, ctx.encryptor(sk), ctx.decryptor(sk), tokens);
            EncryptedTensor enc = engine.fromPlainScores(scores);
            long t0 = System.nanoTime();
            EncryptedTensor w;
            try (var scope = engine.operator("attention-normalization")) {
                w = kernel.normalize(engine, enc, null);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            Matrix actual = engine.toPlain(w);
            double max = 0;
            double rowSumErr = 0;
            for (int r = 0; r < tokens; r++) {
                double sum = 0;
                for (int c = 0; c < tokens; c++) {
                    max = Math.max(max, Math.abs(actual.get(r, c) - expected.get(r, c)));
                    sum += actual.get(r, c);
                }
                rowSumErr = Math.max(rowSumErr, Math.abs(sum - 1));
            }
            out.printf(
                    Locale.ROOT,
                    "2. Encrypted attention: a %dx%d score block, CKKS (%s, N=2^%d, %d levels; an "
                            + "insecure test ring, for a quick demo)%n   %s%n   %.2f s, %d "
                            + "levels consumed; max |encrypted - "
                            + "plaintext| %.2e; rows sum to 1 within %.2e%n%n",
                    tokens,
                    tokens,
                    backend.name(),
                    params.logN(),
                    params.maxLevel(),
                    kernel.describe(),
                    seconds,
                    engine.depth(w),
                    max,
                    rowSumErr);
            out.flush();
        }
    }
}
