package dev.polyhe.approx.taylor;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.PolynomialApproximator;
import java.util.Set;

/** Service {@value TaylorExp#NAME}: option {@code degree} (1..30, default 8, as in NEXUS). */
public final class TaylorExpApproximator implements PolynomialApproximator {
    public static final int DEFAULT_DEGREE = 8;
    public static final int MAX_DEGREE = 30;

    @Override
    public String name() {
        return TaylorExp.NAME;
    }

    @Override
    public String apiVersion() {
        return PolyHeApi.VERSION;
    }

    @Override
    public String description() {
        return "Taylor series of exp around 0 (NEXUS baseline), depth ⌈log2(d+1)⌉";
    }

    @Override
    public Approximation approximate(ApproximationSpec spec) {
        spec.options().requireOnly(Set.of("degree"));
        int degree = spec.options().getInt("degree", DEFAULT_DEGREE, 1, MAX_DEGREE);
        return new TaylorExp(spec.domain(), degree);
    }
}
