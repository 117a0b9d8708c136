package dev.polyhe.backend.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Device time per kernel, summed over a context's life: what {@code POLYHE_CUDA_PROFILE=1} turns on (the device
 * check's profile steps), printed when the context closes. {@link CudaDevice} times each launch between two CUDA
 * events and reads them back in batches, so profiling adds a host wait per batch, not per launch.
 */
final class KernelProfile {
    /** The environment variable that turns profiling on. */
    static final String ENV = "POLYHE_CUDA_PROFILE";

    private final Map<String, double[]> totals = new TreeMap<>();

    /** Whether the environment asks for a profile. */
    static boolean requested() {
        String v = System.getenv(ENV);
        return v != null && !v.isEmpty() && !v.equals("0");
    }

    synchronized void record(String kernel, double ms) {
        double[] t = totals.computeIfAbsent(kernel, k -> new double[2]);
        t[0]++;
        t[1] += ms;
    }

    /** One line per kernel, the most time first: launches, total ms, mean µs, share of all kernels' time. */
    synchronized String report() {
        double all = 0;
        long launches = 0;
        for (double[] t : totals.values()) {
            all += t[1];
            launches += (long) t[0];
        }
        List<Map.Entry<String, double[]>> rows = new ArrayList<>(totals.entrySet());
        rows.sort((a, b) -> Double.compare(b.getValue()[1], a.getValue()[1]));
        StringBuilder sb = new StringBuilder(String.format(
                Locale.ROOT,
                "ckks-cuda kernel profile: %d launches, %.1f ms of kernel time%n%-26s %10s %12s %10s %7s%n",
                launches,
                all,
                "kernel",
                "launches",
                "total ms",
                "mean us",
                "share"));
        for (Map.Entry<String, double[]> e : rows) {
            double[] t = e.getValue();
            sb.append(String.format(
                    Locale.ROOT,
                    "%-26s %10d %12.2f %10.1f %6.1f%%%n",
                    e.getKey(),
                    (long) t[0],
                    t[1],
                    1000 * t[1] / t[0],
                    all == 0 ? 0 : 100 * t[1] / all));
        }
        return sb.toString();
    }

    synchronized boolean isEmpty() {
        return totals.isEmpty();
    }
}
