package dev.polyhe.api.approx;

import dev.polyhe.api.Options;
import java.util.function.DoubleUnaryOperator;

/**
 * What to approximate: a target function (named, for reports and configs), the domain it must hold on, and
 * approximator-specific options ({@code degree}, {@code iterations}, ...). Approximators with a fixed
 * target (Goldschmidt 1/x) ignore {@code target} but still check the domain.
 */
public record ApproximationSpec(String function, DoubleUnaryOperator target, Domain domain, Options options) {
    public ApproximationSpec {
        if (function == null || function.isBlank()) {
            throw new IllegalArgumentException("approximation spec needs a function name");
        }
        if (domain == null) {
            throw new IllegalArgumentException("approximation spec for '" + function + "' needs a domain");
        }
        if (options == null) {
            options = Options.empty(function);
        }
    }

    public static ApproximationSpec of(String function, DoubleUnaryOperator target, double lo, double hi) {
        return new ApproximationSpec(function, target, new Domain(lo, hi), Options.empty(function));
    }

    public ApproximationSpec withOption(String key, Object value) {
        return new ApproximationSpec(function, target, domain, options.with(key, value));
    }
}
