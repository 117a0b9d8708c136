package dev.polyhe.core.inference;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What the exact model fed one non-polynomial site over the calibration inputs.
 *
 * @param function {@code inv-sqrt}, {@code gelu}, {@code tanh} or {@code attention}
 * @param min smallest input seen (for attention: the smallest score)
 * @param max largest input seen
 * @param count number of input values seen
 * @param rowPowerMeanMin attention only: the smallest row mean of (masked score)^p, the denominator of
 *        length-agnostic PowerSoftmax
 * @param rowPowerMeanMax attention only: the largest such mean
 * @param rowPowerSumMin attention only: the smallest row sum of (masked score)^p, the denominator (minus ε) of
 *        PowerSoftmax
 * @param rowPowerSumMax attention only: the largest such sum
 * @param maxKeys attention only: the longest row (sequence length) seen
 * @param rowVisibleMeanMin attention only: the smallest (ε + Σ x^p)/n over rows, n the keys the row sees (a causal
 *        row t sees t + 1): the denominator of PowerSoftmax with each row divided by its own length (Eq. 7 with a
 *        per-row L), whose spread does not grow with the sequence as the sums' does
 * @param rowVisibleMeanMax attention only: the largest such value
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SiteCalibration(
        String function,
        double min,
        double max,
        long count,
        @JsonProperty("row_power_mean_min") Double rowPowerMeanMin,
        @JsonProperty("row_power_mean_max") Double rowPowerMeanMax,
        @JsonProperty("row_power_sum_min") Double rowPowerSumMin,
        @JsonProperty("row_power_sum_max") Double rowPowerSumMax,
        @JsonProperty("max_keys") Integer maxKeys,
        @JsonProperty("row_visible_mean_min") Double rowVisibleMeanMin,
        @JsonProperty("row_visible_mean_max") Double rowVisibleMeanMax) {

    /** A site without attention statistics (LayerNorm, GELU, tanh, the input embeddings). */
    public static SiteCalibration range(String function, double min, double max, long count) {
        return new SiteCalibration(function, min, max, count, null, null, null, null, null, null, null);
    }

    SiteCalibration merge(SiteCalibration o) {
        if (!o.function.equals(function)) {
            throw new IllegalStateException("site used for both " + function + " and " + o.function);
        }
        return new SiteCalibration(
                function,
                Math.min(min, o.min),
                Math.max(max, o.max),
                count + o.count,
                minOf(rowPowerMeanMin, o.rowPowerMeanMin),
                maxOf(rowPowerMeanMax, o.rowPowerMeanMax),
                minOf(rowPowerSumMin, o.rowPowerSumMin),
                maxOf(rowPowerSumMax, o.rowPowerSumMax),
                maxKeys == null
                        ? o.maxKeys
                        : o.maxKeys == null ? maxKeys : Integer.valueOf(Math.max(maxKeys, o.maxKeys)),
                minOf(rowVisibleMeanMin, o.rowVisibleMeanMin),
                maxOf(rowVisibleMeanMax, o.rowVisibleMeanMax));
    }

    private static Double minOf(Double a, Double b) {
        return a == null ? b : b == null ? a : Double.valueOf(Math.min(a, b));
    }

    private static Double maxOf(Double a, Double b) {
        return a == null ? b : b == null ? a : Double.valueOf(Math.max(a, b));
    }
}
