package dev.polyhe.core.bench;

import java.util.List;
import java.util.Locale;

/** Per mechanism: errors against exact softmax and exact PowerSoftmax, and the measured depth. */
public record AttentionBenchmarkReport(int rows, int length, String reference, List<Row> results) {

    /**
     * @param depth multiplicative depth measured on the plain engine
     * @param polynomial whether the mechanism ran without a single non-polynomial step
     */
    public record Row(
            String mechanism,
            String description,
            int depth,
            long multiplications,
            boolean polynomial,
            double maxErrorVsSoftmax,
            double meanErrorVsSoftmax,
            double maxErrorVsPowerSoftmax,
            double meanErrorVsPowerSoftmax) {}

    public String toText() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "Attention benchmark: %d rows x L=%d; reference PowerSoftmax %s%n",
                rows,
                length,
                reference));
        String fmt = "%-32s %6s %7s %5s %12s %12s %12s %12s%n";
        sb.append(String.format(
                Locale.ROOT,
                fmt,
                "mechanism",
                "depth",
                "mults",
                "poly",
                "max|d|smax",
                "mean|d|smax",
                "max|d|psmax",
                "mean|d|psmax"));
        for (Row r : results) {
            sb.append(String.format(
                    Locale.ROOT,
                    "%-32s %6d %7d %5s %12.3e %12.3e %12.3e %12.3e%n",
                    r.mechanism(),
                    r.depth(),
                    r.multiplications(),
                    r.polynomial() ? "yes" : "no",
                    r.maxErrorVsSoftmax(),
                    r.meanErrorVsSoftmax(),
                    r.maxErrorVsPowerSoftmax(),
                    r.meanErrorVsPowerSoftmax()));
        }
        for (Row r : results) {
            sb.append("  ")
                    .append(r.mechanism())
                    .append(": ")
                    .append(r.description())
                    .append(System.lineSeparator());
        }
        return sb.toString();
    }
}
