package dev.polyhe.core.engine.encrypted;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A model's parameters encrypted by its owner, by the site the engine uses each at ({@link ParameterRecorder}): the
 * linear maps' weights and biases, and the row vectors of LayerNorm. An engine given them
 * ({@link EncryptedEngine#useParameters}) runs every such operation on them, whatever values the model passes, and
 * refuses an operation it has no parameter for: a model whose weights it holds only as magnitudes computes nothing
 * from them unseen.
 */
public final class EncryptedParameters {
    /** A linear map's encrypted weight and bias (null: none). */
    public record LinearSite(EncryptedWeights weight, EncryptedRow bias) {}

    private final Map<String, LinearSite> linear;
    private final Map<String, EncryptedRow> rows;

    public EncryptedParameters(Map<String, LinearSite> linear, Map<String, EncryptedRow> rows) {
        this.linear = Collections.unmodifiableMap(new LinkedHashMap<>(linear));
        this.rows = Collections.unmodifiableMap(new LinkedHashMap<>(rows));
    }

    public Map<String, LinearSite> linear() {
        return linear;
    }

    public Map<String, EncryptedRow> rows() {
        return rows;
    }

    /** Every site, linear maps first, in the order of the run that recorded them. */
    public Set<String> sites() {
        Set<String> all = new java.util.LinkedHashSet<>(linear.keySet());
        all.addAll(rows.keySet());
        return all;
    }

    LinearSite linearAt(String site) {
        LinearSite s = linear.get(site);
        if (s == null) {
            throw new IllegalStateException(missing("linear map", site, linear.keySet()));
        }
        return s;
    }

    EncryptedRow rowAt(String site) {
        EncryptedRow r = rows.get(site);
        if (r == null) {
            throw new IllegalStateException(missing("row vector", site, rows.keySet()));
        }
        return r;
    }

    private static String missing(String what, String site, Set<String> known) {
        return "the encrypted model has no " + what + " for " + site + " (it holds " + known.size() + ": "
                + String.join(", ", known.stream().limit(6).toList()) + (known.size() > 6 ? ", ..." : "")
                + "): was it encrypted for this model and these options?";
    }
}
