package dev.polyhe.approx.polynomial;

import dev.polyhe.api.arith.Arith;
import java.util.Arrays;

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
 * wherever the budget has room. Basis elements are built lazily and shared. The split is made once per polynomial
 * ({@link #of}) and evaluated at any number of points.
 */
public final class PatersonStockmeyer {
    /** A piece of the split: p = q·B_k + r, down to linear combinations of baby steps and constants. */
    private sealed interface Piece {}

    private record Constant(double value) implements Piece {}

    /** Σ_{1 ≤ j ≤ deg} c_j B_j + c_0. */
    private record Combination(double[] c, int deg) implements Piece {}

    /** q·B_k + r; r null when it is zero. */
    private record Split(int k, Piece q, Piece r) implements Piece {}

    private final PolynomialBasis basis;
    private final Piece root;
    /** The highest basis element any piece reads: the size of an evaluation's element table. */
    private final int maxElement;

    private PatersonStockmeyer(PolynomialBasis basis, Piece root, int maxElement) {
        this.basis = basis;
        this.root = root;
        this.maxElement = maxElement;
    }

    /**
     * The split of Σ coefficients[j]·B_j, made once: its divisions cost O(d²) and depend only on the coefficients, so
     * an approximation evaluated at many points (its error on a dense grid, a table of values) makes them once.
     */
    public static PatersonStockmeyer of(PolynomialBasis basis, double[] coefficients) {
        int deg = degree(coefficients);
        int n = depthOf(deg + 1);
        Splitter splitter = new Splitter(basis, 1 << ((n + 1) / 2));
        Piece root = splitter.split(Arrays.copyOf(coefficients, Math.max(deg + 1, 1)), n);
        return new PatersonStockmeyer(basis, root, Math.max(1, splitter.maxElement));
    }

    /** Σ coefficients[j]·B_j(t). */
    public static <T> T evaluate(Arith<T> arith, PolynomialBasis basis, T t, double[] coefficients) {
        return of(basis, coefficients).evaluate(arith, t);
    }

    /** The polynomial at t, with basis elements built lazily and shared within this evaluation. */
    public <T> T evaluate(Arith<T> arith, T t) {
        return new Evaluation<>(arith, basis, t, maxElement).eval(root);
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

    private static final class Splitter {
        final PolynomialBasis basis;
        final int babyStepBound;
        int maxElement;

        Splitter(PolynomialBasis basis, int babyStepBound) {
            this.basis = basis;
            this.babyStepBound = babyStepBound;
        }

        Piece split(double[] c, int budget) {
            int deg = degree(c);
            if (deg <= 0) {
                return new Constant(deg < 0 ? 0 : c[0]);
            }
            if (deg == 1 || (deg < babyStepBound && linearCombinationDepth(c, deg) <= budget)) {
                maxElement = Math.max(maxElement, deg);
                return new Combination(Arrays.copyOf(c, deg + 1), deg);
            }
            int k = Integer.highestOneBit(deg);
            maxElement = Math.max(maxElement, k);
            double[][] qr = basis.divide(Arrays.copyOf(c, deg + 1), k);
            double[] q = qr[0];
            double[] r = qr[1];
            Piece high = degree(q) == 0 ? new Constant(q[0]) : split(q, budget - 1);
            int degR = degree(r);
            Piece low = degR < 0 ? null : degR == 0 ? new Constant(r[0]) : split(r, budget);
            return new Split(k, high, low);
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
    }

    private static final class Evaluation<T> {
        final Arith<T> arith;
        final PolynomialBasis basis;
        final T t;
        final Object[] elements;

        Evaluation(Arith<T> arith, PolynomialBasis basis, T t, int maxElement) {
            this.arith = arith;
            this.basis = basis;
            this.t = t;
            this.elements = new Object[maxElement + 1];
        }

        T eval(Piece piece) {
            if (piece instanceof Constant k) {
                return arith.constantLike(t, k.value());
            }
            if (piece instanceof Combination l) {
                return linearCombination(l.c(), l.deg());
            }
            Split s = (Split) piece;
            T high = s.q() instanceof Constant k
                    ? arith.mulConstant(element(s.k()), k.value())
                    : arith.mul(eval(s.q()), element(s.k()));
            if (s.r() == null) {
                return high;
            }
            return s.r() instanceof Constant k ? arith.addConstant(high, k.value()) : arith.add(high, eval(s.r()));
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

        @SuppressWarnings("unchecked")
        private T element(int j) {
            if (j == 1) {
                return t;
            }
            T cached = (T) elements[j];
            if (cached != null) {
                return cached;
            }
            int a = Integer.highestOneBit(j - 1);
            int b = j - a;
            T value = basis.combine(arith, element(a), element(b), a == b ? null : () -> element(a - b));
            elements[j] = value;
            return value;
        }
    }
}
