/**
 * The RLWE layer: ternary secrets, hybrid key-switching keys (dnum digits, special primes P) and the key
 * switcher (ModUp, inner product, ModDown) whose decomposition hoisted rotations share.
 */
package dev.polyhe.ckks.rlwe;
