package dev.polyhe.api.model;

/**
 * The shape of a loaded model, for reports and packing decisions.
 *
 * @param labels number of output classes, or the vocabulary size for language models
 */
public record ModelInfo(
        String modelType, int hiddenSize, int layers, int heads, int intermediateSize, int maxTokens, int labels) {}
