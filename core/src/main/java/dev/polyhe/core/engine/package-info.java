/**
 * The plaintext tensor engine ({@link PlainEngine}, {@link PlainTensor}): the exact and the polynomial model run
 * on it, and it is the reference the encrypted tensor engine ({@code engine.encrypted}) is held to.
 */
package dev.polyhe.core.engine;
