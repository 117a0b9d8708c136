package dev.polyhe.models.tokenizer;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelInfo;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.api.model.ModelOutput;
import dev.polyhe.api.model.Nonlinearities;
import java.nio.file.Path;

/** A text model whose checkpoint folder has a {@code tokenizer.json}: everything else is the model's own. */
public final class TokenizedModel implements Model {
    private final Model model;
    private final ByteLevelBpeTokenizer tokenizer;

    private TokenizedModel(Model model, ByteLevelBpeTokenizer tokenizer) {
        this.model = model;
        this.tokenizer = tokenizer;
    }

    /** {@code model} with the folder's tokenizer, or {@code model} itself when the folder has none. */
    public static Model withTokenizerOf(Path checkpointDir, Model model) {
        return ByteLevelBpeTokenizer.find(checkpointDir)
                .<Model>map(t -> new TokenizedModel(model, t))
                .orElse(model);
    }

    @Override
    public long[] tokenize(String text) {
        return tokenizer.encode(text);
    }

    @Override
    public ModelInfo info() {
        return model.info();
    }

    @Override
    public Matrix embed(ModelInput input) {
        return model.embed(input);
    }

    @Override
    public <M> ModelOutput<M> forward(
            TensorOps<M> ops, M embeddings, Nonlinearities nonlinearities, LayerObserver observer) {
        return model.forward(ops, embeddings, nonlinearities, observer);
    }
}
