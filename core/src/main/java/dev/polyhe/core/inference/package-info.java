/**
 * Inference on a checkpoint: {@link InferenceService} loads models and runs them exact or polynomial;
 * {@link Calibration} holds the approximation domains measured on sample data ({@code polyhe calibrate}) that the
 * polynomial model and the encrypted engine use; input files and their errors.
 */
package dev.polyhe.core.inference;
