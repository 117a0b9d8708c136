package dev.polyhe.approx.taylor;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.approx.polynomial.DeclaredApproximator;
import java.util.Set;

/** Service {@value TaylorExp#NAME}: option {@code degree} (1..30, default 8, as in NEXUS). */
public final class TaylorExpApproximator extends DeclaredApproximator {
    public static final int DEFAULT_DEGREE = 8;
    public static final int MAX_DEGREE = 30;

    public TaylorExpApproximator() {
        super(TaylorExp.NAME, "Taylor series of exp around 0 (NEXUS baseline), depth ⌈log2(d+1)⌉");
    }

    @Override
    public Approximation approximate(ApproximationSpec spec) {
        spec.options().requireOnly(Set.of("degree"));
        int degree = spec.options().getInt("degree", DEFAULT_DEGREE, 1, MAX_DEGREE);
        return new TaylorExp(spec.domain(), degree);
    }
}
