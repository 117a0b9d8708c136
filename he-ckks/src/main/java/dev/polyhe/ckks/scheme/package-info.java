/**
 * The CKKS scheme over the ring and RLWE layers: validated parameters and presets (HE Security Standard,
 * 128 bits), the canonical-embedding encoder, encryption, the evaluator with exact level and scale
 * bookkeeping, and the versioned, checksummed blob format.
 */
package dev.polyhe.ckks.scheme;
