/**
 * The arithmetic a model is written once against: {@link TensorOps} is matrix arithmetic over a plaintext or a
 * packed, encrypted matrix, and {@link Arith} the element-wise arithmetic polynomial programs (Goldschmidt,
 * Chebyshev, PowerSoftmax) use, so that the same code runs in plaintext and under encryption. {@link ScalarArith}
 * is the reference on single doubles (with {@link Traced}: a value and the depth that produced it), with which a
 * plugin measures its own programs; {@link OperatorScope} is a region of accounted work.
 */
package dev.polyhe.api.arith;
