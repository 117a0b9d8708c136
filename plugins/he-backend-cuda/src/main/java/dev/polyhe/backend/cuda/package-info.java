/**
 * The HE backend {@code ckks-cuda}: the same RNS-CKKS scheme with ciphertexts and keys in GPU memory and the ring
 * arithmetic in CUDA kernels (ring_kernels.cu) through JCuda's driver API. {@link CkksCudaBackend} is the plugin;
 * the executor, its key switching, the device tables and memory pool are package-private. docs/gpu.md has the
 * design, how it is checked without a GPU and the device check.
 */
package dev.polyhe.backend.cuda;
