package dev.polyhe.ckks.executor;

/**
 * An RNS polynomial held by a {@link RingExecutor}: limbs 0..level of the ciphertext primes, NTT form. Immutable
 * once made: executors share limbs between handles (a level drop shares them), so nothing writes into a handle
 * another may hold. Made and read only by the executor that holds it.
 */
public interface RnsPoly {
    /** Number of limbs held (level + 1). */
    int limbCount();
}
