/**
 * The byte-level BPE tokenizer of GPT-NeoX and RoBERTa checkpoints (tokenizer.json), so a model can take text.
 */
package dev.polyhe.models.tokenizer;
