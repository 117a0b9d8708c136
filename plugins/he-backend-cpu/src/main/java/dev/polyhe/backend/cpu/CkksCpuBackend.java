package dev.polyhe.backend.cpu;

import dev.polyhe.api.he.Availability;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.ckks.scheme.CkksContext;
import dev.polyhe.ckks.scheme.SchemeBackend;

/**
 * The pure-Java RNS-CKKS backend {@code ckks-cpu}. Threads per context: the constructor argument, else the
 * system property {@value #THREADS_PROPERTY}, else the number of available processors.
 */
public final class CkksCpuBackend extends SchemeBackend {
    public static final String NAME = "ckks-cpu";
    public static final String THREADS_PROPERTY = "polyhe.cpu.threads";

    private final int threads;

    /** The ServiceLoader constructor: threads from {@value #THREADS_PROPERTY} or the processor count. */
    public CkksCpuBackend() {
        this(defaultThreads());
    }

    public CkksCpuBackend(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads = " + threads + "; at least 1 is needed");
        }
        this.threads = threads;
    }

    private static int defaultThreads() {
        String v = System.getProperty(THREADS_PROPERTY);
        if (v == null || v.isBlank()) {
            return Runtime.getRuntime().availableProcessors();
        }
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(THREADS_PROPERTY + " = '" + v + "' is not a whole number of threads");
        }
    }

    public int threads() {
        return threads;
    }

    @Override
    public int parallelism() {
        return threads;
    }

    @Override
    public HeBackend withParallelism(int threads) {
        return threads == this.threads ? this : new CkksCpuBackend(threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "RNS-CKKS in pure Java: NTT, hybrid key switching, rotations (" + threads + " threads)";
    }

    @Override
    public Availability availability() {
        return Availability.yes();
    }

    @Override
    public HeContext open(CkksParameters parameters) {
        return new CkksContext(parameters, threads);
    }
}
