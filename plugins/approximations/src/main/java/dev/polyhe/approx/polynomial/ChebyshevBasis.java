package dev.polyhe.approx.polynomial;

import dev.polyhe.api.arith.Arith;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * Chebyshev polynomials of the first kind on [−1, 1]. Evaluating in this basis keeps every intermediate value
 * in [−1, 1] (|T_j| ≤ 1 there), which is what makes high degrees numerically safe under CKKS.
 */
final class ChebyshevBasis implements PolynomialBasis {
    @Override
    public <T> T combine(Arith<T> arith, T ta, T tb, Supplier<T> taMinusB) {
        // 2·T_a·T_b = T_{a+b} + T_{a−b}; the factor 2 is an integer, so it costs no level.
        T twice = arith.mulConstant(arith.mul(ta, tb), 2);
        return taMinusB == null ? arith.addConstant(twice, -1) : arith.sub(twice, taMinusB.get());
    }

    @Override
    public double[][] divide(double[] c, int k) {
        int deg = c.length - 1;
        if (deg >= 2 * k || deg < k) {
            throw new IllegalArgumentException("degree " + deg + " cannot be divided by T_" + k);
        }
        // T_j = 2·T_K·T_{j−K} − T_{2K−j} for K < j < 2K, and T_K = T_K·T_0.
        double[] q = new double[deg - k + 1];
        double[] r = Arrays.copyOf(c, k);
        q[0] = c[k];
        for (int j = k + 1; j <= deg; j++) {
            q[j - k] = 2 * c[j];
            r[2 * k - j] -= c[j];
        }
        return new double[][] {q, r};
    }
}
