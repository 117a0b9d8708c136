/**
 * Client-side debugging: {@link ErrorTracingOps} runs the polynomial model encrypted and in plaintext side by side
 * and records, per step, the error in bits and what went into every bootstrap ({@link ErrorTrace}).
 */
package dev.polyhe.core.engine.trace;
