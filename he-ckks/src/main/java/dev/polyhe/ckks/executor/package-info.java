/**
 * Where limbs live. The scheme is written once over {@link dev.polyhe.ckks.executor.RingExecutor}: polynomials
 * are {@link dev.polyhe.ckks.executor.RnsPoly} handles, and an executor (JVM arrays here, GPU memory in
 * {@code ckks-cuda}) supplies the ring arithmetic on them: element-wise products and sums, automorphisms, rescale,
 * basis conversion and the key-switching inner product. Key generation, encryption, encoding and decryption run
 * on the host (they are the client's work) and move limbs in and out with upload and download.
 */
package dev.polyhe.ckks.executor;
