package dev.polyhe.approx.taylor;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.arith.Arith;
import dev.polyhe.approx.polynomial.PatersonStockmeyer;
import dev.polyhe.approx.polynomial.PolynomialBasis;

/**
 * exp(x) ≈ Σ_{k≤d} x^k/k!, the NEXUS baseline's exponential (degree 8 there). Evaluated in the power basis by
 * Paterson–Stockmeyer: depth ⌈log2(d+1)⌉ (4 for d = 8). Accurate only near 0 (the remainder is
 * ≈ |x|^{d+1}/(d+1)!), which is why the baseline needs the max subtraction and why the error on the domain is
 * measured and reported rather than assumed.
 */
public record TaylorExp(Domain domain, int degree) implements Approximation {
    public static final String NAME = "taylor-exp";

    @Override
    public String describe() {
        return NAME + "(degree=" + degree + ") on " + domain;
    }

    @Override
    public String function() {
        return "exp";
    }

    @Override
    public double exact(double x) {
        return Math.exp(x);
    }

    @Override
    public <T> T evaluate(Arith<T> arith, T x) {
        double[] c = new double[degree + 1];
        double factorial = 1;
        for (int k = 0; k <= degree; k++) {
            factorial *= Math.max(k, 1);
            c[k] = 1 / factorial;
        }
        return PatersonStockmeyer.evaluate(arith, PolynomialBasis.MONOMIAL, x, c);
    }
}
