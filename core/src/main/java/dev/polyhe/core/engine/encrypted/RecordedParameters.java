package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.Matrix;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The parameters a run passed, by site ({@link ParameterRecorder}), kept to be encrypted by their owner: record a run
 * of the model in the clear (a planning run will do), then {@link #encrypt} them under the key set the server will
 * run them with. A site the run passed twice (a model whose parameter would change between calls) is refused.
 */
public final class RecordedParameters implements ParameterRecorder {
    private record LinearParameter(Matrix weight, double[] bias) {}

    private final Map<String, LinearParameter> linear = new LinkedHashMap<>();
    private final Map<String, double[]> rows = new LinkedHashMap<>();

    @Override
    public synchronized void linear(String site, Matrix weight, double[] bias) {
        if (linear.putIfAbsent(site, new LinearParameter(weight, bias)) != null) {
            throw new IllegalStateException("the linear map at " + site + " was recorded twice");
        }
    }

    @Override
    public synchronized void row(String site, double[] values) {
        if (rows.putIfAbsent(site, values) != null) {
            throw new IllegalStateException("the row vector at " + site + " was recorded twice");
        }
    }

    /** The sites recorded: linear maps, then row vectors. */
    public synchronized int size() {
        return linear.size() + rows.size();
    }

    /** Each site's shape, linear maps first, in the order recorded. */
    public synchronized Map<String, EncryptedParameters.Shape> shapes() {
        Map<String, EncryptedParameters.Shape> out = new LinkedHashMap<>();
        linear.forEach((k, p) -> out.put(
                k,
                new EncryptedParameters.Shape(
                        true, p.weight().rows(), p.weight().cols(), p.bias() != null)));
        rows.forEach((k, r) -> out.put(k, new EncryptedParameters.Shape(false, 1, r.length, false)));
        return out;
    }

    /**
     * Every parameter encrypted by {@code client} (an engine with the owner's secret key and the server's packing) at
     * {@code level}; {@code progress} is told of each site done and how many there are.
     */
    public EncryptedParameters encrypt(EncryptedEngine client, int level, Progress progress) {
        return encrypt(client, site -> level, progress);
    }

    /**
     * Every parameter encrypted by {@code client} at its own level: {@code levelOf} a linear map's or row's site, or a
     * bias's ({@link CiphertextLinear#biasSite}); weights at level 2 at least (their masks and the product), rows at 1.
     */
    public synchronized EncryptedParameters encrypt(
            EncryptedEngine client, java.util.function.ToIntFunction<String> levelOf, Progress progress) {
        Map<String, EncryptedParameters.LinearSite> l = new LinkedHashMap<>();
        Map<String, EncryptedRow> r = new LinkedHashMap<>();
        int total = size();
        int done = 0;
        for (var e : linear.entrySet()) {
            LinearParameter p = e.getValue();
            EncryptedRow bias = p.bias() == null
                    ? null
                    : client.encryptRow(
                            p.bias(), Math.max(1, levelOf.applyAsInt(CiphertextLinear.biasSite(e.getKey()))));
            l.put(
                    e.getKey(),
                    new EncryptedParameters.LinearSite(
                            client.encryptWeights(p.weight(), Math.max(2, levelOf.applyAsInt(e.getKey()))), bias));
            progress.encrypted(e.getKey(), ++done, total);
        }
        for (var e : rows.entrySet()) {
            r.put(e.getKey(), client.encryptRow(e.getValue(), Math.max(1, levelOf.applyAsInt(e.getKey()))));
            progress.encrypted(e.getKey(), ++done, total);
        }
        return new EncryptedParameters(l, r);
    }

    /** Told as each site is encrypted. */
    public interface Progress {
        void encrypted(String site, int done, int total);
    }
}
