package dev.polyhe.ckks.ring;

import java.util.Optional;

/**
 * Whether the ring's kernels may use SIMD lanes ({@link SimdNtt}): the JDK's incubating Vector API must be in the
 * boot layer ({@code --add-modules jdk.incubator.vector}, which the {@code polyhe} launcher and the tests add), its
 * preferred vectors must hold at least 4 longs, and {@code -Dpolyhe.ckks.simd=false} must not turn it off. Without it
 * the scalar kernels run, with the same results bit for bit. Decided once, on first use.
 */
public final class Simd {
    /** The system property that turns SIMD kernels off ({@code false}); on by default where available. */
    public static final String PROPERTY = "polyhe.ckks.simd";

    private static final int MIN_LANES = 4;
    private static final boolean AVAILABLE = detect();

    private Simd() {}

    /** Whether {@link SimdNtt} runs the NTT's wide layers. */
    public static boolean available() {
        return AVAILABLE;
    }

    /** For reports: "SIMD, 8 lanes", or "scalar (...)" with the reason. */
    public static String describe() {
        if (AVAILABLE) {
            return "SIMD, " + SimdNtt.lanes() + " lanes";
        }
        if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
            return "scalar (-D" + PROPERTY + "=false)";
        }
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            return "scalar (add --add-modules jdk.incubator.vector)";
        }
        return "scalar (vectors of fewer than " + MIN_LANES + " longs)";
    }

    private static boolean detect() {
        if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
            return false;
        }
        Optional<Module> vector = ModuleLayer.boot().findModule("jdk.incubator.vector");
        if (vector.isEmpty()) {
            return false;
        }
        try {
            // a named module reads an optional (static) dependence only once told to
            Simd.class.getModule().addReads(vector.get());
            return SimdNtt.lanes() >= MIN_LANES;
        } catch (LinkageError | RuntimeException e) {
            return false;
        }
    }
}
