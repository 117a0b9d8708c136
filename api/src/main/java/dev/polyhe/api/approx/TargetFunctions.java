package dev.polyhe.api.approx;

import dev.polyhe.api.Options;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;

/**
 * The functions a config file can name as an approximation target ({@code function: sigmoid}), so that a spec
 * read from text gets a real {@link DoubleUnaryOperator} to interpolate and to measure errors against. The
 * exact reference model uses the same definitions (GELU with erf, as Hugging Face's {@code gelu}).
 */
public final class TargetFunctions {
    private static final double SQRT_HALF = Math.sqrt(0.5);
    private static final double TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

    private static final Map<String, DoubleUnaryOperator> TARGETS;

    static {
        Map<String, DoubleUnaryOperator> m = new LinkedHashMap<>();
        m.put("sigmoid", TargetFunctions::sigmoid);
        m.put("tanh", Math::tanh);
        m.put("exp", Math::exp);
        m.put("gelu", TargetFunctions::gelu);
        m.put("inverse", x -> 1 / x);
        m.put("inv-sqrt", x -> 1 / Math.sqrt(x));
        m.put("relu", x -> Math.max(0, x));
        TARGETS = Collections.unmodifiableMap(m);
    }

    private TargetFunctions() {}

    /** The known names, in a stable order. */
    public static Set<String> names() {
        return TARGETS.keySet();
    }

    /** @throws IllegalArgumentException naming the unknown function and listing the known ones */
    public static DoubleUnaryOperator named(String name) {
        DoubleUnaryOperator f = TARGETS.get(name);
        if (f == null) {
            throw new IllegalArgumentException(
                    "unknown target function '" + name + "'; known: " + String.join(", ", TARGETS.keySet()));
        }
        return f;
    }

    /** A spec for a named target on [lo, hi] with the given options. */
    public static ApproximationSpec spec(String name, double lo, double hi, Options options) {
        return new ApproximationSpec(name, named(name), new Domain(lo, hi), options);
    }

    public static double sigmoid(double x) {
        // Written so that neither branch overflows exp.
        if (x >= 0) {
            return 1 / (1 + Math.exp(-x));
        }
        double e = Math.exp(x);
        return e / (1 + e);
    }

    /** GELU(x) = x·Φ(x) = x·(1 + erf(x/√2))/2, the exact form used by BERT/GPT-NeoX. */
    public static double gelu(double x) {
        return 0.5 * x * (1 + erf(x * SQRT_HALF));
    }

    /**
     * The error function to about 1e-15: the everywhere-convergent series
     * erf(x) = 2/√π·e^{-x²}·Σ 2^n x^{2n+1}/(1·3·…·(2n+1)) has positive terms only, so no cancellation;
     * beyond |x| = 6 erf is ±1 to double precision (erfc(6) ≈ 2e-17).
     */
    public static double erf(double x) {
        double ax = Math.abs(x);
        if (ax >= 6) {
            return Math.signum(x);
        }
        double x2 = ax * ax;
        double term = ax;
        double sum = ax;
        for (int n = 1; n < 200; n++) {
            term *= 2 * x2 / (2 * n + 1);
            sum += term;
            if (term < 1e-17 * sum) {
                break;
            }
        }
        return Math.copySign(TWO_OVER_SQRT_PI * Math.exp(-x2) * sum, x);
    }
}
