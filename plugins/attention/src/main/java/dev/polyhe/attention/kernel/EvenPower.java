package dev.polyhe.attention.kernel;

import dev.polyhe.api.arith.Arith;

/** x^p by square-and-multiply: depth ⌈log2 p⌉ (x⁴: 2 levels, x⁶: 3). */
public final class EvenPower {
    private EvenPower() {}

    public static <T> T of(Arith<T> arith, T x, int p) {
        if (p < 1) {
            throw new IllegalArgumentException("power must be ≥ 1, got " + p);
        }
        T result = null;
        T square = x;
        for (int bits = p; bits > 0; bits >>= 1) {
            if ((bits & 1) != 0) {
                result = result == null ? square : arith.mul(result, square);
            }
            if (bits > 1) {
                square = arith.square(square);
            }
        }
        return result;
    }
}
