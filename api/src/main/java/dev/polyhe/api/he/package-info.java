/**
 * HE backends, the third extension point. A {@link HeBackend} (ckks-cpu, ckks-cuda, a third party's) says
 * whether it can run here ({@link Availability}), names its presets and opens a {@link HeContext} for
 * {@link CkksParameters}: key generation, the {@link Encoder}, {@link Encryptor} and {@link Decryptor} (the
 * client's), the {@link Evaluator} (the server's, with {@link EvaluationKeys} only) and the versioned, checksummed
 * {@link HeSerializer}. Parameters below 128-bit security are refused without the explicit opt-in
 * ({@link InsecureParametersException}). Backends of one {@link HeBackend#dataFormat() data format} read each
 * other's keys and ciphertexts, so the server chooses where it evaluates. {@link DeviceQueue} and
 * {@link SingleLimbNtt} are optional capabilities for benchmarks.
 */
package dev.polyhe.api.he;
