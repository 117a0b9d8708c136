package dev.polyhe.attention;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.Options;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.attention.AttentionMechanism;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.PlainTensor;
import java.util.Map;
import java.util.Random;

/** Scores, masks and a one-call run of a kernel on the reference engine. */
final class AttentionFixtures {
    static final ServiceApproximations APPROXIMATIONS = new ServiceApproximations();

    private AttentionFixtures() {}

    /** rows × cols Gaussian scores of standard deviation {@code scale}, reproducible. */
    static Matrix gaussian(int rows, int cols, double scale, long seed) {
        Random r = new Random(seed);
        double[] d = new double[rows * cols];
        for (int i = 0; i < d.length; i++) {
            d[i] = scale * r.nextGaussian();
        }
        return new Matrix(rows, cols, d);
    }

    /** Query i sees keys 0..i + (cols − rows): the causal mask of the last {@code rows} positions. */
    static Matrix causal(int rows, int cols) {
        double[] d = new double[rows * cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j <= i + cols - rows; j++) {
                d[i * cols + j] = 1;
            }
        }
        return new Matrix(rows, cols, d);
    }

    static AttentionKernel kernel(AttentionMechanism mechanism, Map<String, String> options) {
        Options o = new Options("attention '" + mechanism.name() + "'", options);
        return mechanism.create(o, APPROXIMATIONS);
    }

    /** The weights and the depth the engine measured. */
    record Run(Matrix weights, int depth, long nonPolynomialCalls) {
        double[] row(int r) {
            return weights.row(r);
        }
    }

    static Run run(AttentionKernel kernel, Matrix scores, Matrix mask) {
        PlainEngine engine = new PlainEngine();
        PlainTensor out = kernel.normalize(engine, engine.fromPlain(scores), mask);
        return new Run(out.toMatrix(), out.depth(), engine.nonPolynomialCalls());
    }

    static double maxAbsDiff(Matrix a, Matrix b) {
        double worst = 0;
        for (int i = 0; i < a.data().length; i++) {
            worst = Math.max(worst, Math.abs(a.data()[i] - b.data()[i]));
        }
        return worst;
    }

    static double maxRowSumError(Matrix w) {
        double worst = 0;
        for (int r = 0; r < w.rows(); r++) {
            double sum = 0;
            for (double v : w.row(r)) {
                sum += v;
            }
            worst = Math.max(worst, Math.abs(sum - 1));
        }
        return worst;
    }
}
