package dev.polyhe.ckks.scheme;

import dev.polyhe.ckks.bootstrap.EncodedDiagonal;
import dev.polyhe.ckks.executor.RnsPoly;

/**
 * A linear transform's encoded diagonal, in the form the ring executor's {@code diagonalsRescale} reads (over the
 * special primes too, and in Montgomery form, on the host); not a plaintext other operations accept.
 */
record CkksDiagonal(RnsPoly poly, int level, double scale, String parameterHash) implements EncodedDiagonal {}
