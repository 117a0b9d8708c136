package dev.polyhe.api.model;

/**
 * What a forward pass yields, held by the engine that ran it.
 *
 * @param lastHiddenState [tokens, hidden]
 * @param logits [tokens, vocab] for language models, [1, labels] for classifiers
 */
public record ModelOutput<M>(M lastHiddenState, M logits) {}
