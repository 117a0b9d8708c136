/**
 * Polynomial approximators, the second extension point: a {@link PolynomialApproximator} turns an
 * {@link ApproximationSpec} (a target function from {@link TargetFunctions}, a {@link Domain}, a degree or an
 * iteration count) into an {@link Approximation} that runs on any {@code Arith}: Chebyshev series, Goldschmidt
 * division and inverse square root, the GELU of a polynomial sigmoid. {@link Approximations} is the lookup by name
 * the host hands to plugins that need an approximator (so that plugins never import each other);
 * {@link ApproximationError} measures one against its target over its domain.
 */
package dev.polyhe.api.approx;
