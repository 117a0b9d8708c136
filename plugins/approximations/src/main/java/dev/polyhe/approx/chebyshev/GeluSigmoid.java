package dev.polyhe.approx.chebyshev;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.approx.TargetFunctions;
import dev.polyhe.api.arith.Arith;

/**
 * GELU(x) ≈ x·σ(1.702x) (the paper's App. C), with σ a Chebyshev interpolant on [1.702a, 1.702b]. The factor
 * 1.702 is folded into the sigmoid's input map, so depth = depth(σ) + 1 (the final product with x).
 * {@link #exact} is the true GELU x·Φ(x), so {@link #maxError()} includes the error of the identity itself
 * (at most ≈ 0.02, near |x| ≈ 2).
 */
public final class GeluSigmoid implements Approximation {
    public static final String NAME = "gelu-sigmoid";
    public static final double SIGMOID_SCALE = 1.702;

    private final Domain domain;
    private final ChebyshevSeries sigmoid;

    public GeluSigmoid(Domain domain, int sigmoidDegree) {
        this.domain = domain;
        Domain scaled = new Domain(SIGMOID_SCALE * domain.lo(), SIGMOID_SCALE * domain.hi());
        this.sigmoid = ChebyshevSeries.interpolate(
                ChebyshevApproximator.NAME, "sigmoid", TargetFunctions::sigmoid, scaled, sigmoidDegree);
    }

    /** The polynomial sigmoid on [1.702a, 1.702b]. */
    public ChebyshevSeries sigmoid() {
        return sigmoid;
    }

    @Override
    public String describe() {
        return NAME + "(degree=" + sigmoid.degree() + ") on " + domain;
    }

    @Override
    public String function() {
        return "gelu";
    }

    @Override
    public Domain domain() {
        return domain;
    }

    @Override
    public int degree() {
        return sigmoid.degree() + 1;
    }

    @Override
    public double exact(double x) {
        return TargetFunctions.gelu(x);
    }

    @Override
    public <T> T evaluate(Arith<T> arith, T x) {
        return arith.mul(x, sigmoid.evaluateScaled(arith, x, SIGMOID_SCALE));
    }
}
