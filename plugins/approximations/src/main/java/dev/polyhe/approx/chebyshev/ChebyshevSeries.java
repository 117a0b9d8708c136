package dev.polyhe.approx.chebyshev;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.arith.Arith;
import dev.polyhe.approx.polynomial.PatersonStockmeyer;
import dev.polyhe.approx.polynomial.PolynomialBasis;
import java.util.function.DoubleUnaryOperator;

/**
 * Σ c_j T_j(t) with t = (2x − a − b)/(b − a): a Chebyshev interpolant of a target on [a, b].
 *
 * <p>Depth, measured and tested: ⌈log2(d+1)⌉ from Paterson–Stockmeyer, plus one level for the map
 * x ↦ t when its slope 2/(b − a) is not an integer (a real-constant product under PolyHE's depth rule;
 * on [−1, 1] or [−½, ½] the map is free). d is the degree after dropping coefficients that are rounding noise.
 */
public final class ChebyshevSeries implements Approximation {
    private final String name;
    private final String function;
    private final DoubleUnaryOperator target;
    private final Domain domain;
    private final double[] coefficients;
    /** The Paterson–Stockmeyer split of the coefficients, made once for every evaluation. */
    private final PatersonStockmeyer program;

    public ChebyshevSeries(
            String name, String function, DoubleUnaryOperator target, Domain domain, double[] coefficients) {
        this.name = name;
        this.function = function;
        this.target = target;
        this.domain = domain;
        this.coefficients = coefficients.clone();
        this.program = PatersonStockmeyer.of(PolynomialBasis.CHEBYSHEV, this.coefficients);
    }

    /** Interpolates {@code target} at the Chebyshev nodes of {@code domain}. */
    public static ChebyshevSeries interpolate(
            String name, String function, DoubleUnaryOperator target, Domain domain, int degree) {
        return new ChebyshevSeries(
                name, function, target, domain, ChebyshevInterpolation.coefficients(function, target, domain, degree));
    }

    @Override
    public String describe() {
        return name + "(" + function + ", degree=" + degree() + ") on " + domain;
    }

    @Override
    public String function() {
        return function;
    }

    @Override
    public Domain domain() {
        return domain;
    }

    @Override
    public int degree() {
        return Math.max(0, PatersonStockmeyer.degree(coefficients));
    }

    public double[] coefficients() {
        return coefficients.clone();
    }

    @Override
    public double exact(double x) {
        return target.applyAsDouble(x);
    }

    @Override
    public <T> T evaluate(Arith<T> arith, T x) {
        return evaluateScaled(arith, x, 1);
    }

    /** p(scale·x): the input scale is folded into the map to t, so it costs no extra level. */
    public <T> T evaluateScaled(Arith<T> arith, T x, double scale) {
        double slope = 2 * scale / domain.width();
        double shift = -(domain.lo() + domain.hi()) / domain.width();
        T t = slope == 1 ? x : arith.mulConstant(x, slope);
        if (shift != 0) {
            t = arith.addConstant(t, shift);
        }
        return program.evaluate(arith, t);
    }

    /** The depth the class comment promises, for tests and reports to compare with the measured one. */
    public int analyticDepth() {
        double slope = 2 / domain.width();
        boolean freeMap = slope == Math.rint(slope);
        return PatersonStockmeyer.depthOf(degree() + 1) + (freeMap ? 0 : 1);
    }
}
