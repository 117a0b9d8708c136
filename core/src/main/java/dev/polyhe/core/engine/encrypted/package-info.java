/**
 * The encrypted tensor engine, over any HE backend: {@link EncryptedEngine} implements {@code TensorOps} on
 * ciphertexts packed in column blocks ({@link Packing}, {@link Layout}), with linear maps ({@link BlockLinear}),
 * attention ({@link BlockAttention}), level and scale management, bootstrapping where a plan says
 * ({@link RefreshPlan}), accounting per operator ({@link Accounting}) and the encrypted tensor file format.
 */
package dev.polyhe.core.engine.encrypted;
