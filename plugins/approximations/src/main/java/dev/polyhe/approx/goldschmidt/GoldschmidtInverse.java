package dev.polyhe.approx.goldschmidt;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.arith.Arith;

/**
 * Goldschmidt division: 1/x on [a, b] (0 < a < b) as a product of n factors.
 *
 * <p>With the public scale s = 2/(a+b) and e = 1 − s·x (|e| ≤ ρ = (b−a)/(b+a) < 1 on the domain),
 * 1/x = s/(1−e) = s·(1+e)(1+e²)(1+e⁴)⋯, and the first n factors give
 * p_n(x) = s·(1 − e^{2^n})/(1 − e) = (1 − e^{2^n})/x. So the relative error is exactly |e|^{2^n} ≤ ρ^{2^n}
 * (quadratic convergence: the number of correct bits doubles with every iteration once |e| is small), and
 * p_n(x) ≤ 1/x always. Inputs outside [a, b] still converge while 0 < x < a + b (where |e| < 1).
 *
 * <p>Program: the scale is folded into the first factor, s·(1+e) = 2s − s²x, so e and s(1+e) are each one
 * product by a real constant (one level); factor i ≥ 1 needs e^{2^i} (one squaring each) and one product.
 * Depth = n + 1 for n ≥ 2 and a non-integer scale (the paper's "21 iterations, depth 22"); n = 1 is the
 * linear 2s − s²x, depth 1. Degree = 2^n − 1.
 *
 * <p>{@code iterations} is an upper bound: once ρ^{2^i} < 2^-53, factor i and every later one equal 1 in float64 on
 * the whole domain, so the program stops there ({@link #effectiveIterations()}), counting ρ as at least 1/2 so that
 * inputs a good way outside a narrow domain (|e| ≤ 1/2: from (lo+hi)/4 to 3(lo+hi)/4) still come out exact. A
 * narrow calibrated domain then costs 6 iterations, not 22: fewer levels and, under encryption, fewer bootstraps,
 * for the same values.
 */
public record GoldschmidtInverse(Domain domain, int iterations) implements Approximation {
    public static final String NAME = "goldschmidt-inverse";

    @Override
    public String describe() {
        int n = effectiveIterations();
        return NAME + "(iterations=" + (n == iterations ? n : n + " of " + iterations) + ") on " + domain;
    }

    /** The iterations that change a float64 value on the domain (ρ ≥ 1/2, see above): at most {@code iterations}. */
    public int effectiveIterations() {
        double rho = Math.max(PositiveDomain.contraction(domain), PositiveDomain.ROBUST_CONTRACTION);
        int n = 1;
        for (double power = rho * rho; n < iterations && power >= 0x1p-53; power *= power) {
            n++;
        }
        return n;
    }

    @Override
    public String function() {
        return "1/x";
    }

    @Override
    public int degree() {
        return (1 << effectiveIterations()) - 1;
    }

    @Override
    public double exact(double x) {
        return 1 / x;
    }

    @Override
    public <T> T evaluate(Arith<T> arith, T x) {
        double s = PositiveDomain.scale(domain);
        T e = arith.addConstant(arith.mulConstant(x, -s), 1);
        T product = arith.addConstant(arith.mulConstant(x, -s * s), 2 * s);
        T ePower = e;
        int n = effectiveIterations();
        for (int i = 1; i < n; i++) {
            ePower = arith.square(ePower);
            product = arith.mul(product, arith.addConstant(ePower, 1));
        }
        return product;
    }

    /** The guaranteed relative error bound ρ^{2^n} on the domain. */
    public double relativeErrorBound() {
        return Math.pow(PositiveDomain.contraction(domain), Math.pow(2, effectiveIterations()));
    }
}
