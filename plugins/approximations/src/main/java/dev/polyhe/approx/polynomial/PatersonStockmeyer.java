package dev.polyhe.approx.polynomial;

import dev.polyhe.api.arith.Arith;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Baby-step giant-step (Paterson–Stockmeyer) evaluation of Σ c_j B_j(t) with multiplicative depth
 * ⌈log2(d+1)⌉ above the depth of t, for degree d.
 *
 * <p>The polynomial is split recursively as p = q·B_K + r with K the largest power of two ≤ deg p. Small
 * pieces (degree below the baby-step bound k ≈ √d) become linear combinations Σ c_j B_j of the baby steps,
 * which costs only products by constants. Under PolyHE's depth rule a product by a real constant costs a
 * level, so a linear combination sits one level above its deepest B_j; each piece therefore gets a depth
 * budget, and a piece whose linear combination would exceed it is split further instead (down to
 * c_0 + c_1·t). That keeps the total at exactly ⌈log2(d+1)⌉ while using the cheap baby-step combinations
 * wherever the budget has room. Basis elements are built lazily and shared.
 */
public final class PatersonStockmeyer<T> {
    private final Arith<T> arith;
    private final PolynomialBasis basis;
    private final T t;
    private final Map<Integer, T> elements = new HashMap<>();
    private int babyStepBound;

    private PatersonStockmeyer(Arith<T> arith, PolynomialBasis basis, T t) {
        this.arith = arith;
        this.basis = basis;
        this.t = t;
    }

    /** Σ coefficients[j]·B_j(t). */
    public static <T> T evaluate(Arith<T> arith, PolynomialBasis basis, T t, double[] coefficients) {
        PatersonStockmeyer<T> ps = new PatersonStockmeyer<>(arith, basis, t);
        int deg = degree(coefficients);
        int n = depthOf(deg + 1);
        ps.babyStepBound = 1 << ((n + 1) / 2);
        return ps.eval(Arrays.copyOf(coefficients, Math.max(deg + 1, 1)), n);
    }

    /** ⌈log2(m)⌉ for m ≥ 1: the depth of a degree-(m−1) polynomial, and of B_m. */
    public static int depthOf(int m) {
        return m <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(m - 1);
    }

    /** Index of the highest non-zero coefficient, −1 for the zero polynomial. */
    public static int degree(double[] c) {
        for (int j = c.length - 1; j >= 0; j--) {
            if (c[j] != 0) {
                return j;
            }
        }
        return -1;
    }

    private T eval(double[] c, int budget) {
        int deg = degree(c);
        if (deg <= 0) {
            return arith.constantLike(t, deg < 0 ? 0 : c[0]);
        }
        if (deg == 1 || (deg < babyStepBound && linearCombinationDepth(c, deg) <= budget)) {
            return linearCombination(c, deg);
        }
        int k = Integer.highestOneBit(deg);
        double[][] qr = basis.divide(Arrays.copyOf(c, deg + 1), k);
        double[] q = qr[0];
        double[] r = qr[1];
        T high = degree(q) == 0 ? arith.mulConstant(element(k), q[0]) : arith.mul(eval(q, budget - 1), element(k));
        int degR = degree(r);
        if (degR < 0) {
            return high;
        }
        return degR == 0 ? arith.addConstant(high, r[0]) : arith.add(high, eval(r, budget));
    }

    private T linearCombination(double[] c, int deg) {
        T sum = null;
        for (int j = 1; j <= deg; j++) {
            if (c[j] != 0) {
                T term = c[j] == 1 ? element(j) : arith.mulConstant(element(j), c[j]);
                sum = sum == null ? term : arith.add(sum, term);
            }
        }
        return c[0] == 0 ? sum : arith.addConstant(sum, c[0]);
    }

    private static int linearCombinationDepth(double[] c, int deg) {
        int depth = 0;
        for (int j = 1; j <= deg; j++) {
            if (c[j] != 0) {
                boolean integer = c[j] == Math.rint(c[j]);
                depth = Math.max(depth, depthOf(j) + (integer ? 0 : 1));
            }
        }
        return depth;
    }

    private T element(int j) {
        if (j == 1) {
            return t;
        }
        T cached = elements.get(j);
        if (cached != null) {
            return cached;
        }
        int a = Integer.highestOneBit(j - 1);
        int b = j - a;
        T value = basis.combine(arith, element(a), element(b), a == b ? null : () -> element(a - b));
        elements.put(j, value);
        return value;
    }
}
