package dev.polyhe.server;

import java.util.Locale;

/** Metrics in the Prometheus text exposition format, one gauge or counter at a time. */
final class PrometheusText {
    private final StringBuilder sb = new StringBuilder();

    PrometheusText gauge(String name, String help, double v) {
        sb.append("# HELP ")
                .append(name)
                .append(' ')
                .append(help)
                .append("\n# TYPE ")
                .append(name)
                .append(" gauge\n")
                .append(name)
                .append(' ')
                .append(format(v))
                .append('\n');
        return this;
    }

    PrometheusText counter(String name, String help, double v) {
        sb.append("# HELP ")
                .append(name)
                .append(' ')
                .append(help)
                .append("\n# TYPE ")
                .append(name)
                .append(" counter\n")
                .append(name)
                .append(' ')
                .append(format(v))
                .append('\n');
        return this;
    }

    private static String format(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15
                ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%.6g", v);
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}
