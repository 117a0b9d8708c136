package dev.polyhe.api.arith;

import java.util.function.DoubleUnaryOperator;

/**
 * Element-wise arithmetic over values of type {@code T}: a plaintext double, a tracked plaintext tensor, a
 * packed ciphertext. Polynomial programs (Goldschmidt, Chebyshev, PowerSoftmax) are written once against
 * this interface and run unchanged in plaintext and under encryption.
 *
 * <p>Depth follows CKKS levels: {@link #mul} and a multiplication by a non-integer constant consume one
 * level; additions and multiplications by integers consume none.
 */
public interface Arith<T> {
    T add(T a, T b);

    T sub(T a, T b);

    T negate(T a);

    /** Element-wise product; one level. */
    T mul(T a, T b);

    default T square(T a) {
        return mul(a, a);
    }

    T addConstant(T a, double c);

    /** Product with a public constant: free for integers, one level otherwise. */
    T mulConstant(T a, double c);

    /** A value of the same shape as {@code like} with every element equal to {@code c}, at depth 0. */
    T constantLike(T like, double c);

    /**
     * A non-polynomial function applied exactly (exp, 1/x, tanh, ...). Plaintext engines support it: it is
     * how the exact reference model runs. Encrypted engines throw {@link NotPolynomialException}: configure a
     * polynomial approximation instead.
     */
    T exact(T a, String function, DoubleUnaryOperator f);

    /** The multiplicative depth (levels) consumed to produce {@code a}. */
    int depth(T a);

    /**
     * {@code a} itself, announced as the input of a program {@code levels} deep whose values lie within
     * ±{@code maxAbs}. Engines that refresh ciphertexts (bootstrapping) may refresh it now, once, if it has fewer
     * levels left and its values are small enough to refresh safely: otherwise the program would run out midway and
     * refresh many of the values it derives from {@code a} (every power of a polynomial's baby steps).
     */
    default T reserve(T a, int levels, double maxAbs) {
        return a;
    }

    /**
     * {@code a} itself, announced to hold values within [lo, hi] (a calibrated range: the domain of an approximation,
     * the scores seen by an attention site). Engines that track the magnitude of their values (to scale them into
     * the range where bootstrapping is accurate) take it as the range of {@code a} and of what derives from it.
     */
    default T bound(T a, double lo, double hi) {
        return a;
    }

    /**
     * Asks for at least {@code bits} of precision, relative to each value's range, for what is computed until the
     * scope closes: a program whose conditioning amplifies errors (a division on a domain spanning κ = hi/lo needs
     * log2 κ bits more than its result) says so here. Engines that refresh values (bootstrapping) raise their
     * precision for them where one refresh is not enough; others need not do anything.
     */
    default OperatorScope precision(double bits) {
        return OperatorScope.NONE;
    }

    /** Thrown by engines that can only evaluate polynomials when asked for a non-polynomial function. */
    final class NotPolynomialException extends UnsupportedOperationException {
        private static final long serialVersionUID = 1L;

        public NotPolynomialException(String function, String engine) {
            super("'" + function + "' is not a polynomial and cannot run on the " + engine
                    + " engine; select a polynomial approximation for it in the config");
        }
    }
}
