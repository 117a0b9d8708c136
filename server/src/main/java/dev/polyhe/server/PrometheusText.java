package dev.polyhe.server;

import java.util.Locale;

/** Metrics in the Prometheus text exposition format, one gauge or counter at a time. */
final class PrometheusText {
    private final StringBuilder sb = new StringBuilder();

    PrometheusText gauge(String name, String help, double v) {
        return metric(name, help, "gauge", v);
    }

    PrometheusText counter(String name, String help, double v) {
        return metric(name, help, "counter", v);
    }

    private PrometheusText metric(String name, String help, String type, double v) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        sb.append(name).append(' ').append(format(v)).append('\n');
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
