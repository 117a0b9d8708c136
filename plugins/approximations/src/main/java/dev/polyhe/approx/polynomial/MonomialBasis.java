package dev.polyhe.approx.polynomial;

import dev.polyhe.api.arith.Arith;
import java.util.Arrays;
import java.util.function.Supplier;

/** The power basis 1, x, x², …; used for Taylor series. */
final class MonomialBasis implements PolynomialBasis {
    @Override
    public <T> T combine(Arith<T> arith, T ba, T bb, Supplier<T> baMinusB) {
        return arith.mul(ba, bb);
    }

    @Override
    public double[][] divide(double[] c, int k) {
        return new double[][] {Arrays.copyOfRange(c, k, c.length), Arrays.copyOf(c, k)};
    }
}
