/**
 * CKKS bootstrapping over the ckks layer's {@link dev.polyhe.api.he.Evaluator}: {@link
 * dev.polyhe.ckks.bootstrap.ModRaise}, {@link dev.polyhe.ckks.bootstrap.CoeffsToSlots} and
 * {@link dev.polyhe.ckks.bootstrap.SlotsToCoeffs} (the special DFT factored into butterfly groups, one
 * level each, evaluated baby-step giant-step over hoisted rotations), and {@link
 * dev.polyhe.ckks.bootstrap.EvalMod} (a Chebyshev series of a scaled cosine plus double angles; the cosine
 * even in the shifted input, so a series in T_2 of half the degree), put
 * together by {@link dev.polyhe.ckks.bootstrap.Bootstrapper}. Only ModRaise and the slot-count change
 * of the sparse trace reach below the Evaluator API, through {@link
 * dev.polyhe.ckks.bootstrap.CiphertextLimbs}.
 *
 * <p>On insecure-test-boot-N10/N12 (h = 64, K = 17, q_0 = 2^55, Δ = 2^40, 14 bootstrapping primes of 60
 * bits): CoeffsToSlots 3 levels, EvalMod 8 (T_2, a series of degree 47 in it, 1 double angle: 16 ciphertext
 * products where the direct degree-58 series and 2 double angles took 18), SlotsToCoeffs 3; 3 levels left.
 * Measured on two shared cores: N = 2^10 full slots 23.9 bits worst slot / 26.6 mean, 0.5–1 s; N = 2^12 full
 * slots 21.5 / 24.4 bits, 1–2 s; 32 sparse slots 26–27 / 28–29 bits, about 0.5 s (sparse slots, n ≤ N/4, put
 * real and imaginary parts side by side and run EvalMod once).
 *
 * <p>At 128 bits, N16-boot-128: a dense secret bootstrapped through the sparse-secret encapsulation ({@link
 * dev.polyhe.ckks.bootstrap.SecretEncapsulation}: ephemeral h = 32, K = 12), q_0 = 2^52, Δ = 2^40,
 * 14 bootstrapping primes of 60 bits, 10 levels left; EvalMod T_2, a series of degree 24 in it and 2 double
 * angles (14 products a half, where the direct degree-47 series took 16: EvalMod 0.79× in one process); full
 * slots (32768): 37.6 s on one thread, 21.5–26.1 s on two, 20.6 bits mean, 17.5 worst slot, 5.3 GB of keys
 * (docs/benchmarks.md).
 */
package dev.polyhe.ckks.bootstrap;
