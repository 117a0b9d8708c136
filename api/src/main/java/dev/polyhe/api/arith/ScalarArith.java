package dev.polyhe.api.arith;

import java.util.function.DoubleUnaryOperator;

/**
 * The reference {@link Arith} on single doubles, tracking depth with the same rules as the engines and
 * counting multiplications. Plugins use it to measure the depth and error of their own programs without
 * depending on an engine. Not thread-safe (it counts).
 */
public final class ScalarArith implements Arith<Traced> {
    private long multiplications;

    /** Ciphertext-ciphertext (or non-integer constant) multiplications so far. */
    public long multiplications() {
        return multiplications;
    }

    /** Depth after multiplying by {@code c}: one level unless {@code c} is an integer. */
    public static int depthAfterConstant(int depth, double c) {
        return c == Math.rint(c) && Math.abs(c) < 0x1p52 ? depth : depth + 1;
    }

    @Override
    public Traced add(Traced a, Traced b) {
        return new Traced(a.value() + b.value(), Math.max(a.depth(), b.depth()));
    }

    @Override
    public Traced sub(Traced a, Traced b) {
        return new Traced(a.value() - b.value(), Math.max(a.depth(), b.depth()));
    }

    @Override
    public Traced negate(Traced a) {
        return new Traced(-a.value(), a.depth());
    }

    @Override
    public Traced mul(Traced a, Traced b) {
        multiplications++;
        return new Traced(a.value() * b.value(), Math.max(a.depth(), b.depth()) + 1);
    }

    @Override
    public Traced addConstant(Traced a, double c) {
        return new Traced(a.value() + c, a.depth());
    }

    @Override
    public Traced mulConstant(Traced a, double c) {
        int d = depthAfterConstant(a.depth(), c);
        if (d > a.depth()) {
            multiplications++;
        }
        return new Traced(a.value() * c, d);
    }

    @Override
    public Traced constantLike(Traced like, double c) {
        return Traced.of(c);
    }

    @Override
    public Traced exact(Traced a, String function, DoubleUnaryOperator f) {
        return new Traced(f.applyAsDouble(a.value()), a.depth());
    }

    @Override
    public int depth(Traced a) {
        return a.depth();
    }
}
