package dev.polyhe.api.approx;

import dev.polyhe.api.arith.Arith;
import dev.polyhe.api.arith.ScalarArith;
import dev.polyhe.api.arith.Traced;

/**
 * A polynomial program approximating a function on a domain. {@link #evaluate} runs the same program on
 * plaintext numbers and on ciphertexts. Depth and error are measured by running the program, never typed in.
 */
public interface Approximation {
    /** Number of points of the dense grid on which {@link #maxError()} is measured. */
    int ERROR_GRID_POINTS = 20_001;

    /** e.g. {@code "goldschmidt-inverse(iterations=14)"}. */
    String describe();

    /** The function approximated ({@code "1/x"}, {@code "sigmoid"}, ...). */
    String function();

    Domain domain();

    /** Degree of the polynomial the program computes. */
    int degree();

    /** The exact value of the approximated function at {@code x}. */
    double exact(double x);

    /** The polynomial program. Inputs outside {@link #domain()} give unspecified (not guarded) results. */
    <T> T evaluate(Arith<T> arith, T x);

    /**
     * The program on {@code x} announced to lie in the domain ({@link Arith#bound}), as every caller assumes: engines
     * that track the magnitude of their values then follow the program from its domain, not from a looser range
     * worked out from what came before.
     */
    default <T> T evaluateOnDomain(Arith<T> arith, T x) {
        return evaluate(arith, arith.bound(x, domain().lo(), domain().hi()));
    }

    /** Multiplicative depth, measured by running the program on a traced scalar. */
    default int depth() {
        ScalarArith arith = new ScalarArith();
        return evaluate(arith, Traced.of(domain().lo())).depth();
    }

    /** Max |p(x) - f(x)| over a dense grid of the domain, measured. */
    default double maxError() {
        return ApproximationError.measure(this, ERROR_GRID_POINTS).max();
    }

    /** Max relative error |p(x) - f(x)| / |f(x)| over the dense grid, measured. */
    default double maxRelativeError() {
        return ApproximationError.measure(this, ERROR_GRID_POINTS).maxRelative();
    }
}
