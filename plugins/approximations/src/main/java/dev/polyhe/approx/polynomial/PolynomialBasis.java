package dev.polyhe.approx.polynomial;

import dev.polyhe.api.arith.Arith;
import java.util.function.Supplier;

/**
 * A basis B_0 = 1, B_1 = t, B_2, … in which a polynomial's coefficients are given, as far as
 * {@link PatersonStockmeyer} needs it: how to build B_j from two lower elements, and how to divide by B_K.
 */
public interface PolynomialBasis {
    /**
     * B_j for j ≥ 2 from B_a and B_b with a = 2^(⌈log2 j⌉−1) and b = j − a (so a ≥ b ≥ 1), and, where the
     * basis needs it, B_{a−b} ({@code null} when a = b, meaning B_0 = 1; a supplier so that bases which do not
     * need it build nothing). One ciphertext product: B_j sits one level above B_a.
     */
    <T> T combine(Arith<T> arith, T ba, T bb, Supplier<T> baMinusB);

    /**
     * Splits p = Σ c_j B_j (degree < 2K) into q and r with p = q·B_K + r and deg r < K.
     *
     * @return {q, r}
     */
    double[][] divide(double[] c, int k);

    /** The monomials x^j: x^j = x^a·x^b, and division by x^K is a shift. */
    PolynomialBasis MONOMIAL = new MonomialBasis();

    /** The Chebyshev polynomials T_j: T_{a+b} = 2·T_a·T_b − T_{a−b}. */
    PolynomialBasis CHEBYSHEV = new ChebyshevBasis();
}
