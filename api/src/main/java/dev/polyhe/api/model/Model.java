package dev.polyhe.api.model;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;

/**
 * A loaded transformer. {@link #embed} runs on the client (token lookup or patch unfolding is cheap and
 * needs the plaintext input); {@link #forward} runs on the server on any engine.
 */
public interface Model {
    ModelInfo info();

    /**
     * Token ids of a text, with the checkpoint's own tokenizer ({@code tokenizer.json}), special tokens
     * included as the checkpoint's post-processor adds them.
     *
     * @throws CheckpointException when the checkpoint has no tokenizer (inputs are then token ids)
     */
    default long[] tokenize(String text) {
        throw new CheckpointException("the checkpoint has no tokenizer.json: give the input as input_ids");
    }

    /** The input of the first transformer block, [tokens, hidden], in plaintext. */
    Matrix embed(ModelInput input);

    /** Everything after the embedding. Written once against {@link TensorOps}. */
    <M> ModelOutput<M> forward(TensorOps<M> ops, M embeddings, Nonlinearities nonlinearities, LayerObserver observer);

    default <M> ModelOutput<M> forward(TensorOps<M> ops, M embeddings, Nonlinearities nonlinearities) {
        return forward(ops, embeddings, nonlinearities, LayerObserver.NONE);
    }

    /** Sees the output of every block (for per-layer error reports and progress). */
    interface LayerObserver {
        LayerObserver NONE = new LayerObserver() {};

        default <M> void blockDone(TensorOps<M> ops, int layer, M output) {}
    }
}
