/**
 * The ring layer: NTT-friendly primes below 2^61, modular arithmetic (Montgomery, Shoup, Barrett), the
 * negacyclic NTT with lazy reduction, RNS polynomials as arrays of flat {@code long[]} limbs, fast basis
 * conversion, rescaling, Galois automorphisms in NTT form, sampling, and the limb thread pool.
 */
package dev.polyhe.ckks.ring;
