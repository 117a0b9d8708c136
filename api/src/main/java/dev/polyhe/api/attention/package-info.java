/**
 * Attention mechanisms, the first extension point: an {@link AttentionMechanism} (softmax, PowerSoftmax and its
 * stable and length-agnostic variants, a third party's) builds, from its options, an {@link AttentionKernel} that
 * normalizes attention scores with tensor operations only, so that it runs in plaintext and on ciphertexts alike.
 */
package dev.polyhe.api.attention;
