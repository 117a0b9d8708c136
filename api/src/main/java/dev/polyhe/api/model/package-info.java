/**
 * Model architectures, the fourth extension point: a {@link ModelArchitecture} (GPT-NeoX, RoBERTa, ViT, a third
 * party's) loads a Hugging Face checkpoint (config.json and safetensors) into a {@link Model} whose forward pass is
 * written once against {@code TensorOps} and runs exact, polynomial or encrypted; {@link Nonlinearities} are its
 * non-polynomial steps, supplied by the host per named site (exact, approximated on calibrated domains, or
 * recording for calibration). A checkpoint that cannot be loaded is a {@link CheckpointException} naming the file,
 * key or tensor and what was expected.
 */
package dev.polyhe.api.model;
