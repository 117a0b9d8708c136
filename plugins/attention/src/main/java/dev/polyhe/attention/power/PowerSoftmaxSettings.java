package dev.polyhe.attention.power;

import dev.polyhe.api.Options;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.attention.kernel.OptionRules;
import dev.polyhe.attention.kernel.RowInverse;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The validated options of a PowerSoftmax kernel. Defaults reproduce the reference PowerSoftmax of the golden
 * files: p = 4, ε = 1e-3, mask applied before the power, w = x⁴/(ε + Σ_k x_k⁴) over all keys, exact division.
 *
 * @param stableDelta δ of the stable variant (divide by max|x| + δ), or NaN when not stable
 */
record PowerSoftmaxSettings(int p, double epsilon, double stableDelta, boolean lengthAgnostic, RowInverse division) {
    static final int DEFAULT_P = 4;
    static final int MAX_P = 64;
    static final double DEFAULT_EPSILON = 1e-3;
    static final double DEFAULT_DELTA = 1e-6;
    static final int DEFAULT_ITERATIONS = 21;
    static final double DEFAULT_LO = 1e-3;
    static final double DEFAULT_HI = 100;

    /** PowerSoftmax's own options and its division's Goldschmidt ones ({@link RowInverse#GOLDSCHMIDT_OPTIONS}). */
    static final Set<String> COMMON_OPTIONS = Stream.concat(
                    Stream.of("p", "epsilon", "stable", "delta", "division"), RowInverse.GOLDSCHMIDT_OPTIONS.stream())
            .collect(Collectors.toUnmodifiableSet());

    boolean stable() {
        return !Double.isNaN(stableDelta);
    }

    static PowerSoftmaxSettings parse(
            Options options, Approximations approximations, boolean lengthAgnostic, String defaultDivision) {
        int p = options.getInt("p", DEFAULT_P);
        if (p < 2 || p > MAX_P || p % 2 != 0) {
            throw new Options.InvalidOptionException(
                    options.owner() + ": option 'p' = " + options.values().get("p")
                            + " is not allowed; allowed: an even integer from 2 to " + MAX_P
                            + " (an even power keeps x^p ≥ 0, so the weights are a distribution)");
        }
        double epsilon = OptionRules.atLeast(
                options, "epsilon", DEFAULT_EPSILON, 0, "ε of the ε-Lipschitz denominator ε + Σx^p");
        boolean stable = options.getBoolean("stable", false);
        OptionRules.onlyWith(options, "delta", stable, "stable=true");
        double delta = stable
                ? OptionRules.atLeast(options, "delta", DEFAULT_DELTA, 0, "δ of the stable scaling max|x| + δ")
                : Double.NaN;
        String division = OptionRules.choice(options, "division", defaultDivision, Set.of("exact", "goldschmidt"));
        boolean goldschmidt = division.equals("goldschmidt");
        for (String key : RowInverse.GOLDSCHMIDT_OPTIONS) {
            OptionRules.onlyWith(options, key, goldschmidt, "division=goldschmidt");
        }
        RowInverse inverse = goldschmidt
                ? RowInverse.goldschmidt(
                        approximations,
                        options.owner(),
                        options.getInt("iterations", DEFAULT_ITERATIONS),
                        guessDegree(options),
                        options.getDouble("lo", DEFAULT_LO),
                        options.getDouble("hi", DEFAULT_HI))
                : RowInverse.exact();
        return new PowerSoftmaxSettings(p, epsilon, delta, lengthAgnostic, inverse);
    }

    /** {@code guess-degree}: auto (the default) or the degree of Goldschmidt's Chebyshev first guess, 0 for none. */
    private static int guessDegree(Options options) {
        String v = options.values().get("guess-degree");
        if (v == null || v.strip().equalsIgnoreCase("auto")) {
            return RowInverse.AUTO_GUESS;
        }
        return options.getInt("guess-degree", RowInverse.AUTO_GUESS, 0, RowInverse.MAX_GUESS_DEGREE);
    }
}
