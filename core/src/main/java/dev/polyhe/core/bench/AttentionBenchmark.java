package dev.polyhe.core.bench;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.core.Plugins;
import dev.polyhe.core.config.AttentionBenchmarkConfig;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.PlainTensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The workload of {@code polyhe run} before models exist: rows of scores through every configured mechanism
 * on the plain engine, each compared with exact softmax and exact PowerSoftmax, its depth measured.
 */
public final class AttentionBenchmark {
    private final Plugins plugins;

    public AttentionBenchmark(Plugins plugins) {
        this.plugins = plugins;
    }

    public AttentionBenchmarkReport run(List<PluginChoice> mechanisms, AttentionBenchmarkConfig cfg) {
        Matrix scores = scores(cfg);
        int rows = scores.rows();
        int cols = scores.cols();
        double[] softmax = ReferenceAttention.softmax(scores.data(), rows, cols);
        double[] power =
                ReferenceAttention.powerSoftmax(scores.data(), rows, cols, cfg.referenceP(), cfg.referenceEpsilon());
        List<AttentionBenchmarkReport.Row> out = new ArrayList<>();
        for (PluginChoice choice : mechanisms) {
            AttentionKernel kernel = plugins.attention(choice);
            PlainEngine engine = new PlainEngine();
            PlainTensor weights = kernel.normalize(engine, engine.fromPlain(scores), null);
            double[] w = engine.toPlain(weights).data();
            double[] es = errors(w, softmax);
            double[] ep = errors(w, power);
            out.add(new AttentionBenchmarkReport.Row(
                    choice.name(),
                    kernel.describe(),
                    engine.depth(weights),
                    engine.multiplications(),
                    engine.nonPolynomialCalls() == 0,
                    es[0],
                    es[1],
                    ep[0],
                    ep[1]));
        }
        return new AttentionBenchmarkReport(
                rows, cols, "p=" + cfg.referenceP() + ", epsilon=" + cfg.referenceEpsilon(), out);
    }

    /** The given rows, or random ones drawn with the configured seed. */
    static Matrix scores(AttentionBenchmarkConfig cfg) {
        if (cfg.scores() != null) {
            int rows = cfg.scores().size();
            int cols = cfg.scores().get(0).size();
            double[] d = new double[rows * cols];
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    d[r * cols + c] = cfg.scores().get(r).get(c);
                }
            }
            return new Matrix(rows, cols, d);
        }
        Random rnd = new Random(cfg.seed());
        double[] d = new double[cfg.rows() * cfg.length()];
        for (int i = 0; i < d.length; i++) {
            d[i] = "uniform".equals(cfg.distribution())
                    ? cfg.spread() * (2 * rnd.nextDouble() - 1)
                    : cfg.spread() * rnd.nextGaussian();
        }
        return new Matrix(cfg.rows(), cfg.length(), d);
    }

    /** {max, mean} of |a - b|; NaN counts as infinite so a broken mechanism cannot look perfect. */
    static double[] errors(double[] a, double[] b) {
        double max = 0;
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            double e = Math.abs(a[i] - b[i]);
            if (Double.isNaN(e)) {
                e = Double.POSITIVE_INFINITY;
            }
            max = Math.max(max, e);
            sum += e;
        }
        return new double[] {max, sum / a.length};
    }
}
