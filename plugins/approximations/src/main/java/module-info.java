/**
 * Polynomial approximations for the non-polynomial steps of a transformer: Goldschmidt division and inverse
 * square root, Chebyshev interpolation evaluated by Paterson–Stockmeyer, GELU through a polynomial sigmoid
 * and the Taylor exponential of the NEXUS baseline. Hosts find them as
 * {@link dev.polyhe.api.approx.PolynomialApproximator} services; nothing else is exported.
 */
module dev.polyhe.approx {
    requires dev.polyhe.api;

    provides dev.polyhe.api.approx.PolynomialApproximator with
            dev.polyhe.approx.goldschmidt.GoldschmidtInverseApproximator,
            dev.polyhe.approx.goldschmidt.GoldschmidtInverseSqrtApproximator,
            dev.polyhe.approx.chebyshev.ChebyshevApproximator,
            dev.polyhe.approx.chebyshev.GeluSigmoidApproximator,
            dev.polyhe.approx.taylor.TaylorExpApproximator;
}
