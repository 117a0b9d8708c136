package dev.polyhe.core.engine.trace;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.OperatorScope;
import dev.polyhe.api.arith.TensorOps;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Function;

/**
 * {@link TensorOps} that runs every operation twice, on a reference engine (the plaintext polynomial model) and on
 * the engine under test (encrypted), reads the traced result back after each one and records its error in an
 * {@link ErrorTrace}. The model code is unchanged: it sees one engine.
 *
 * <p>Reading an encrypted value back needs the secret key: this is a client-side debugging tool, never a server's.
 * Results stay paired, so the traced engine computes exactly what it would alone; only its time is not
 * representative (every step is decrypted).
 */
public final class ErrorTracingOps<R, T> implements TensorOps<Paired<R, T>> {
    private final TensorOps<R> reference;
    private final TensorOps<T> traced;
    private final Probe<T> probe;
    private final ErrorTrace trace = new ErrorTrace();
    private final Deque<String> scopes = new ArrayDeque<>();

    public ErrorTracingOps(TensorOps<R> reference, TensorOps<T> traced, Probe<T> probe) {
        this.reference = reference;
        this.traced = traced;
        this.probe = probe;
    }

    public ErrorTrace trace() {
        return trace;
    }

    /** The operator path now open, e.g. {@code layers.0.attention/attention-normalization}. */
    String operatorPath() {
        return scopes.isEmpty() ? "(top level)" : scopes.peekLast();
    }

    /** The number of steps recorded so far (a bootstrap is attributed to the step after it). */
    int stepsSoFar() {
        return trace.stepCount();
    }

    /** Records a bootstrap seen by the traced engine while the current step ran. */
    public void bootstrap(
            int slots,
            int levelIn,
            double logScaleIn,
            double[][] in,
            double[][] out,
            double inputFactor,
            double bound) {
        double maxIn = 0;
        double maxImaginary = 0;
        double maxErr = 0;
        for (int i = 0; i < in[0].length; i++) {
            maxIn = Math.max(maxIn, Math.abs(in[0][i]));
            maxImaginary = Math.max(maxImaginary, Math.abs(in[1][i]));
            maxErr = Math.max(maxErr, Math.abs(out[0][i] - in[0][i] / inputFactor));
        }
        // relative to the values, but no finer than the scale resolves (about 2^10 units of rescaling noise): values
        // below it are noise, whatever a bootstrap does with them
        double resolution = Math.scalb(1.0, 10 - (int) Math.round(logScaleIn));
        double scaled = Math.max(maxIn / Math.abs(inputFactor), resolution);
        trace.add(new ErrorTrace.Bootstrap(
                trace.bootstrapCount(),
                trace.stepCount(),
                operatorPath(),
                slots,
                levelIn,
                logScaleIn,
                maxIn,
                maxImaginary,
                inputFactor,
                bound,
                maxErr,
                ErrorTrace.bits(maxErr, scaled)));
    }

    @SafeVarargs
    private Paired<R, T> step(String op, R r, T t, Paired<R, T>... inputs) {
        Matrix ref = reference.toPlain(r);
        Matrix got = traced.toPlain(t);
        double maxRef = 0;
        double maxErr = 0;
        double[] a = ref.data();
        double[] b = got.data();
        for (int i = 0; i < a.length; i++) {
            maxRef = Math.max(maxRef, Math.abs(a[i]));
            double d = Math.abs(a[i] - b[i]);
            maxErr = Double.isNaN(d) ? Double.POSITIVE_INFINITY : Math.max(maxErr, d);
        }
        // relative to the larger of the result and its operands: a product by a tiny coefficient, or a cancellation,
        // keeps the operands' absolute error and is no loss of precision in itself
        double magnitude = Math.max(
                maxRef,
                Arrays.stream(inputs).mapToDouble(Paired::magnitude).max().orElse(0));
        double bits = ErrorTrace.bits(maxErr, magnitude);
        // a step with no traced operand (an encryption, a constant) starts the error: it has lost nothing
        double inputBits = Arrays.stream(inputs).mapToDouble(Paired::bits).min().orElse(bits);
        trace.add(new ErrorTrace.Step(
                trace.stepCount(),
                operatorPath(),
                op,
                ref.rows(),
                ref.cols(),
                probe.level(t),
                probe.logScale(t),
                maxRef,
                maxErr,
                bits,
                inputBits,
                probe.bound(t),
                probe.imaginary(t),
                probe.slotMagnitude(t),
                probe.boundSource(t)));
        return new Paired<>(r, t, bits, magnitude);
    }

    private Paired<R, T> map(
            String op, Paired<R, T> a, Function<TensorOps<R>, R> onRef, Function<TensorOps<T>, T> onTraced) {
        return step(op, onRef.apply(reference), onTraced.apply(traced), a);
    }

    @Override
    public String engineName() {
        return traced.engineName() + "+trace";
    }

    @Override
    public Paired<R, T> add(Paired<R, T> a, Paired<R, T> b) {
        return step("add", reference.add(a.reference(), b.reference()), traced.add(a.traced(), b.traced()), a, b);
    }

    @Override
    public Paired<R, T> sub(Paired<R, T> a, Paired<R, T> b) {
        return step("sub", reference.sub(a.reference(), b.reference()), traced.sub(a.traced(), b.traced()), a, b);
    }

    @Override
    public Paired<R, T> negate(Paired<R, T> a) {
        return map("negate", a, e -> e.negate(a.reference()), e -> e.negate(a.traced()));
    }

    @Override
    public Paired<R, T> mul(Paired<R, T> a, Paired<R, T> b) {
        return step("mul", reference.mul(a.reference(), b.reference()), traced.mul(a.traced(), b.traced()), a, b);
    }

    @Override
    public Paired<R, T> square(Paired<R, T> a) {
        return map("square", a, e -> e.square(a.reference()), e -> e.square(a.traced()));
    }

    @Override
    public Paired<R, T> addConstant(Paired<R, T> a, double c) {
        return map("addConstant", a, e -> e.addConstant(a.reference(), c), e -> e.addConstant(a.traced(), c));
    }

    @Override
    public Paired<R, T> mulConstant(Paired<R, T> a, double c) {
        return map("mulConstant", a, e -> e.mulConstant(a.reference(), c), e -> e.mulConstant(a.traced(), c));
    }

    @Override
    public Paired<R, T> constantLike(Paired<R, T> like, double c) {
        return step("constantLike", reference.constantLike(like.reference(), c), traced.constantLike(like.traced(), c));
    }

    @Override
    public Paired<R, T> exact(Paired<R, T> a, String function, DoubleUnaryOperator f) {
        return map(
                "exact " + function,
                a,
                e -> e.exact(a.reference(), function, f),
                e -> e.exact(a.traced(), function, f));
    }

    @Override
    public int depth(Paired<R, T> a) {
        return traced.depth(a.traced());
    }

    @Override
    public Paired<R, T> reserve(Paired<R, T> a, int levels, double maxAbs) {
        return map(
                "reserve",
                a,
                e -> e.reserve(a.reference(), levels, maxAbs),
                e -> e.reserve(a.traced(), levels, maxAbs));
    }

    @Override
    public Paired<R, T> bound(Paired<R, T> a, double lo, double hi) {
        return map("bound", a, e -> e.bound(a.reference(), lo, hi), e -> e.bound(a.traced(), lo, hi));
    }

    @Override
    public int rows(Paired<R, T> m) {
        return traced.rows(m.traced());
    }

    @Override
    public int cols(Paired<R, T> m) {
        return traced.cols(m.traced());
    }

    @Override
    public Paired<R, T> fromPlain(Matrix m) {
        return step("fromPlain", reference.fromPlain(m), traced.fromPlain(m));
    }

    /** The traced engine's value (decrypted: the run's real output). */
    @Override
    public Matrix toPlain(Paired<R, T> m) {
        return traced.toPlain(m.traced());
    }

    /** A value of the traced engine paired with the same value of the reference (e.g. an encrypted input). */
    public Paired<R, T> pair(R r, T t) {
        return step("input", r, t);
    }

    @Override
    public Paired<R, T> linear(Paired<R, T> x, Matrix weight, double[] bias) {
        return map("linear", x, e -> e.linear(x.reference(), weight, bias), e -> e.linear(x.traced(), weight, bias));
    }

    @Override
    public Paired<R, T> matmul(Paired<R, T> a, Paired<R, T> b) {
        return step(
                "matmul", reference.matmul(a.reference(), b.reference()), traced.matmul(a.traced(), b.traced()), a, b);
    }

    @Override
    public Paired<R, T> matmulTransposed(Paired<R, T> a, Paired<R, T> b) {
        return step(
                "matmulTransposed",
                reference.matmulTransposed(a.reference(), b.reference()),
                traced.matmulTransposed(a.traced(), b.traced()),
                a,
                b);
    }

    @Override
    public Paired<R, T> headScores(Paired<R, T> q, Paired<R, T> k, int heads) {
        return step(
                "headScores",
                reference.headScores(q.reference(), k.reference(), heads),
                traced.headScores(q.traced(), k.traced(), heads),
                q,
                k);
    }

    @Override
    public Paired<R, T> headContexts(Paired<R, T> weights, Paired<R, T> values, int heads) {
        return step(
                "headContexts",
                reference.headContexts(weights.reference(), values.reference(), heads),
                traced.headContexts(weights.traced(), values.traced(), heads),
                weights,
                values);
    }

    @Override
    public Paired<R, T> rowSums(Paired<R, T> m) {
        return map("rowSums", m, e -> e.rowSums(m.reference()), e -> e.rowSums(m.traced()));
    }

    @Override
    public Paired<R, T> rowMeans(Paired<R, T> m) {
        return map("rowMeans", m, e -> e.rowMeans(m.reference()), e -> e.rowMeans(m.traced()));
    }

    @Override
    public Paired<R, T> mulPlain(Paired<R, T> m, Matrix plain) {
        return map("mulPlain", m, e -> e.mulPlain(m.reference(), plain), e -> e.mulPlain(m.traced(), plain));
    }

    @Override
    public Paired<R, T> addPlain(Paired<R, T> m, Matrix plain) {
        return map("addPlain", m, e -> e.addPlain(m.reference(), plain), e -> e.addPlain(m.traced(), plain));
    }

    @Override
    public Paired<R, T> mulRow(Paired<R, T> m, double[] v) {
        return map("mulRow", m, e -> e.mulRow(m.reference(), v), e -> e.mulRow(m.traced(), v));
    }

    @Override
    public Paired<R, T> addRow(Paired<R, T> m, double[] v) {
        return map("addRow", m, e -> e.addRow(m.reference(), v), e -> e.addRow(m.traced(), v));
    }

    @Override
    public Paired<R, T> columns(Paired<R, T> m, int from, int to) {
        return map("columns", m, e -> e.columns(m.reference(), from, to), e -> e.columns(m.traced(), from, to));
    }

    @Override
    public Paired<R, T> rowRange(Paired<R, T> m, int from, int to) {
        return map("rowRange", m, e -> e.rowRange(m.reference(), from, to), e -> e.rowRange(m.traced(), from, to));
    }

    @Override
    @SuppressWarnings("unchecked")
    public Paired<R, T> concatColumns(List<Paired<R, T>> parts) {
        return step(
                "concatColumns",
                reference.concatColumns(parts.stream().map(Paired::reference).toList()),
                traced.concatColumns(parts.stream().map(Paired::traced).toList()),
                parts.toArray(Paired[]::new));
    }

    @Override
    @SuppressWarnings("unchecked")
    public Paired<R, T> concatRows(List<Paired<R, T>> parts) {
        return step(
                "concatRows",
                reference.concatRows(parts.stream().map(Paired::reference).toList()),
                traced.concatRows(parts.stream().map(Paired::traced).toList()),
                parts.toArray(Paired[]::new));
    }

    @Override
    public Paired<R, T> permuteColumns(Paired<R, T> m, int[] source, Matrix weights) {
        return map(
                "permuteColumns",
                m,
                e -> e.permuteColumns(m.reference(), source, weights),
                e -> e.permuteColumns(m.traced(), source, weights));
    }

    @Override
    public Paired<R, T> rowMaxAbs(Paired<R, T> m) {
        return map("rowMaxAbs", m, e -> e.rowMaxAbs(m.reference()), e -> e.rowMaxAbs(m.traced()));
    }

    @Override
    public OperatorScope precision(double bits) {
        OperatorScope r = reference.precision(bits);
        OperatorScope t = traced.precision(bits);
        return () -> {
            t.close();
            r.close();
        };
    }

    @Override
    public OperatorScope operator(String name) {
        String path = scopes.isEmpty() ? name : scopes.peekLast() + "/" + name;
        scopes.addLast(path);
        OperatorScope r = reference.operator(name);
        OperatorScope t = traced.operator(name);
        return () -> {
            t.close();
            r.close();
            scopes.removeLast();
        };
    }
}
