/**
 * CKKS bootstrapping over the ckks layer's {@link dev.polyhe.api.he.Evaluator}: {@link
 * dev.polyhe.backend.cpu.bootstrap.ModRaise}, {@link dev.polyhe.backend.cpu.bootstrap.CoeffsToSlots} and
 * {@link dev.polyhe.backend.cpu.bootstrap.SlotsToCoeffs} (the special DFT factored into butterfly groups, one
 * level each, evaluated baby-step giant-step over hoisted rotations), and {@link
 * dev.polyhe.backend.cpu.bootstrap.EvalMod} (a Chebyshev series of a scaled cosine plus double angles), put
 * together by {@link dev.polyhe.backend.cpu.bootstrap.Bootstrapper}. Only ModRaise and the slot-count change
 * of the sparse trace reach below the Evaluator API, through {@link
 * dev.polyhe.backend.cpu.bootstrap.CiphertextLimbs}.
 *
 * <p>On insecure-test-boot-N10/N12 (h = 64, K = 17, q_0 = 2^55, Δ = 2^40, 14 bootstrapping primes of 60
 * bits): CoeffsToSlots 3 levels, EvalMod 8 (degree-58 series, 2 double angles), SlotsToCoeffs 3; 3 levels
 * left. Measured on two shared cores: N = 2^10 full slots 23.8 bits worst slot / 26.7 mean, about 0.5–0.8 s;
 * N = 2^12 full slots 21.6 / 24.4 bits, about 1–1.5 s; 32 sparse slots about 28 / 31 bits.
 */
package dev.polyhe.backend.cpu.bootstrap;
