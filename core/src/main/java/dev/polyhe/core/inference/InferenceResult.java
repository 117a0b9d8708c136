package dev.polyhe.core.inference;

import dev.polyhe.api.Matrix;
import java.util.List;

/**
 * One forward pass, read back as plaintext.
 *
 * @param embeddings the input of the first block (client side)
 * @param logits null for a base model without a head
 * @param layerOutputs the output of every block, in order
 * @param maxDepth the deepest multiplicative depth reached (the levels an encrypted run would need without
 *        bootstrapping)
 * @param nonPolynomialCalls exact non-polynomial evaluations (0 for a model that can run encrypted)
 */
public record InferenceResult(
        Matrix embeddings,
        Matrix lastHiddenState,
        Matrix logits,
        List<Matrix> layerOutputs,
        int maxDepth,
        long multiplications,
        long nonPolynomialCalls) {}
