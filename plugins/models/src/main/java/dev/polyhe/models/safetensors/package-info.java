/**
 * Reading Hugging Face safetensors checkpoints, single files and shards, with every header checked (dtype,
 * shape, offsets) before a tensor is read: a malformed file names what was wrong.
 */
package dev.polyhe.models.safetensors;
