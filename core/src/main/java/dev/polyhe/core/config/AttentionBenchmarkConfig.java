package dev.polyhe.core.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The attention benchmark workload: rows of scores of length L, random or given, through each mechanism.
 *
 * @param length L, the number of keys per row (ignored when {@code scores} is given)
 * @param rows number of random rows
 * @param distribution {@code normal} or {@code uniform}
 * @param spread standard deviation (normal) or half-width (uniform) of the random scores
 * @param scores explicit rows, all of one length, or null for random ones
 * @param referenceP p of the exact PowerSoftmax the errors are measured against
 * @param referenceEpsilon ε of that reference
 */
public record AttentionBenchmarkConfig(
        int length,
        int rows,
        long seed,
        String distribution,
        double spread,
        List<List<Double>> scores,
        int referenceP,
        double referenceEpsilon) {

    public static final List<String> DISTRIBUTIONS = List.of("normal", "uniform");

    @JsonCreator
    public static AttentionBenchmarkConfig create(
            @JsonProperty("length") Integer length,
            @JsonProperty("rows") Integer rows,
            @JsonProperty("seed") Long seed,
            @JsonProperty("distribution") String distribution,
            @JsonProperty("spread") Double spread,
            @JsonProperty("scores") List<List<Double>> scores,
            @JsonProperty("reference-p") Integer referenceP,
            @JsonProperty("reference-epsilon") Double referenceEpsilon) {
        return new AttentionBenchmarkConfig(
                length == null ? 128 : length,
                rows == null ? 16 : rows,
                seed == null ? 42L : seed,
                distribution == null ? "normal" : distribution,
                spread == null ? 1.0 : spread,
                scores,
                referenceP == null ? 4 : referenceP,
                referenceEpsilon == null ? 1e-3 : referenceEpsilon);
    }

    public static AttentionBenchmarkConfig defaults() {
        return create(null, null, null, null, null, null, null, null);
    }

    public AttentionBenchmarkConfig {
        require(length >= 1 && length <= 1 << 16, "length", length, "1 .. 65536");
        require(rows >= 1 && rows <= 4096, "rows", rows, "1 .. 4096");
        require(DISTRIBUTIONS.contains(distribution), "distribution", distribution, String.join(", ", DISTRIBUTIONS));
        require(spread > 0 && Double.isFinite(spread), "spread", spread, "a positive number");
        require(referenceP >= 2 && referenceP % 2 == 0, "reference-p", referenceP, "an even integer >= 2");
        require(referenceEpsilon >= 0, "reference-epsilon", referenceEpsilon, ">= 0");
        if (scores != null) {
            require(!scores.isEmpty(), "scores", "[]", "at least one row");
            int l = scores.get(0).size();
            for (int i = 0; i < scores.size(); i++) {
                require(
                        scores.get(i) != null && scores.get(i).size() == l && l > 0,
                        "scores[" + i + "]",
                        scores.get(i) == null ? "null" : scores.get(i).size() + " values",
                        l + " values like row 0");
            }
            scores = scores.stream().map(List::copyOf).toList();
        }
    }

    static void require(boolean ok, String key, Object value, String allowed) {
        if (!ok) {
            throw new IllegalArgumentException("'" + key + "' = " + value + " is not allowed; expected " + allowed);
        }
    }
}
