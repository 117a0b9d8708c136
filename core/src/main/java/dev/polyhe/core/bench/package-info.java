/**
 * The measurements {@code polyhe bench} runs: CKKS operations and bootstrapping ({@link CkksBenchmark}), attention
 * mechanisms in plaintext and encrypted, and {@link RandomCheckpoint}, the generated checkpoints the benches and
 * tests use instead of downloads.
 */
package dev.polyhe.core.bench;
