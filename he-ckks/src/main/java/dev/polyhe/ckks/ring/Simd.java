package dev.polyhe.ckks.ring;

import java.util.Optional;

/**
 * Whether the ring's kernels may use SIMD lanes ({@link SimdNtt}): the JDK's incubating Vector API must be in the
 * boot layer ({@code --add-modules jdk.incubator.vector}, which the {@code polyhe} launcher and the tests add), its
 * preferred vectors must hold at least 8 longs, and {@code -Dpolyhe.ckks.simd=false} must not turn it off. Without it
 * the scalar kernels run, with the same results bit for bit. Decided once, on first use.
 */
public final class Simd {
    /** The system property that turns SIMD kernels off ({@code false}); on by default where available. */
    public static final String PROPERTY = "polyhe.ckks.simd";

    /**
     * AVX-512's 8 lanes of longs at least: AVX2's 4 have no 64-bit multiply, which the JIT then emulates, and the NTT
     * ran 1.24× slower there than the scalar one (measured with {@code -XX:UseAVX=2} on the 2-core machine).
     */
    private static final int MIN_LANES = 8;
    /** Why the kernels are scalar here, or null where they run on lanes. */
    private static final String SCALAR_BECAUSE = scalarBecause();

    private Simd() {}

    /** Whether the ring kernels run on lanes ({@link SimdNtt}, {@link SimdBasisConversion}, {@link SimdModular}). */
    public static boolean available() {
        return SCALAR_BECAUSE == null;
    }

    /** For reports: "SIMD, 8 lanes", or "scalar (...)" with the reason. */
    public static String describe() {
        return available() ? "SIMD, " + SimdNtt.lanes() + " lanes" : "scalar (" + SCALAR_BECAUSE + ")";
    }

    private static String scalarBecause() {
        if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
            return "-D" + PROPERTY + "=false";
        }
        Optional<Module> vector = ModuleLayer.boot().findModule("jdk.incubator.vector");
        if (vector.isEmpty()) {
            return "add --add-modules jdk.incubator.vector";
        }
        try {
            // a named module reads an optional (static) dependence only once told to
            Simd.class.getModule().addReads(vector.get());
            return SimdNtt.lanes() >= MIN_LANES ? null : "vectors of fewer than " + MIN_LANES + " longs";
        } catch (LinkageError | RuntimeException e) {
            return "the Vector API failed to load: " + e;
        }
    }
}
