package dev.polyhe.models;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.api.model.Nonlinearities;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.inference.ErrorStats;
import dev.polyhe.core.inference.ExactNonlinearities;
import dev.polyhe.core.inference.InferenceResult;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.LoadedModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * All three architectures against the outputs of the original Hugging Face implementation, with softmax and
 * with PowerSoftmax (p = 4, ε = 1e-3) attention from the attention plugin: embeddings, every block output,
 * every head's attention weights, last hidden state and logits, each within 1e-4 (max abs).
 */
class GoldenOutputsTest {
    static final double TOLERANCE = 1e-4;
    private static PolyHe polyhe;

    @BeforeAll
    static void start() {
        polyhe = PolyHe.builder().build();
    }

    @AfterAll
    static void stop() {
        polyhe.close();
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String m : Golden.MODELS) {
            out.add(Arguments.of(m, "softmax", PluginChoice.of("softmax")));
            out.add(Arguments.of(
                    m, "powersoftmax", new PluginChoice("power-softmax", Map.of("p", 4, "epsilon", 0.001))));
        }
        return out.stream();
    }

    /** Keeps every attention output so the weights can be checked head by head. */
    static final class AttentionCapture implements Nonlinearities {
        final Nonlinearities inner;
        final List<Matrix> weights = new ArrayList<>();

        AttentionCapture(Nonlinearities inner) {
            this.inner = inner;
        }

        @Override
        public <M> M invSqrt(TensorOps<M> ops, M x, String site) {
            return inner.invSqrt(ops, x, site);
        }

        @Override
        public <M> M gelu(TensorOps<M> ops, M x, String site) {
            return inner.gelu(ops, x, site);
        }

        @Override
        public <M> M tanh(TensorOps<M> ops, M x, String site) {
            return inner.tanh(ops, x, site);
        }

        @Override
        public <M> M attention(TensorOps<M> ops, M scores, Matrix mask, String site) {
            M w = inner.attention(ops, scores, mask, site);
            // The heads' weights come stacked, [heads·T, T]: one matrix per head.
            Matrix all = ops.toPlain(w);
            int tokens = all.cols();
            for (int h = 0; h < all.rows() / tokens; h++) {
                weights.add(new Matrix(
                        tokens,
                        tokens,
                        java.util.Arrays.copyOfRange(all.data(), h * tokens * tokens, (h + 1) * tokens * tokens)));
            }
            return w;
        }
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("cases")
    void matchesTheReferenceImplementation(String model, String kind, PluginChoice attention) {
        InferenceService service = polyhe.inference().withAttention(attention);
        LoadedModel loaded = service.load(Golden.dir(model));
        assertEquals(model, loaded.modelType());
        List<ModelInput> inputs = Golden.inputs(model);
        double worst = 0;
        try (Golden.Expected expected = new Golden.Expected(model, kind)) {
            for (int k = 0; k < inputs.size(); k++) {
                String c = "case" + k + ".";
                ExactNonlinearities exact = service.exactNonlinearities();
                AttentionCapture capture = new AttentionCapture(exact);
                InferenceResult r = service.run(loaded.model(), inputs.get(k), capture);
                worst = Math.max(worst, check(c + "embeddings", r.embeddings(), expected.matrix(c + "embeddings")));
                int layers = r.layerOutputs().size();
                assertEquals(loaded.model().info().layers(), layers);
                int heads = loaded.model().info().heads();
                for (int l = 0; l < layers; l++) {
                    check(
                            c + "layers." + l + ".output",
                            r.layerOutputs().get(l),
                            expected.matrix(c + "layers." + l + ".output"));
                    List<Matrix> probs = expected.heads(c + "layers." + l + ".attention_probs");
                    for (int h = 0; h < heads; h++) {
                        check(
                                c + "layers." + l + ".attention_probs[head " + h + "]",
                                capture.weights.get(l * heads + h),
                                probs.get(h));
                    }
                }
                worst = Math.max(
                        worst,
                        check(c + "last_hidden_state", r.lastHiddenState(), expected.matrix(c + "last_hidden_state")));
                worst = Math.max(worst, check(c + "logits", r.logits(), expected.matrix(c + "logits")));
                assertTrue(r.nonPolynomialCalls() > 0, "the exact model evaluates erf-GELU and 1/sqrt exactly");
            }
        }
        System.out.printf(
                "golden %s/%s: max abs error %.3g (last_hidden_state, logits, embeddings)%n", model, kind, worst);
    }

    private static double check(String what, Matrix actual, Matrix expected) {
        ErrorStats e = ErrorStats.between(actual, expected);
        assertTrue(e.max() <= TOLERANCE, what + ": max abs error " + e.max() + " > " + TOLERANCE);
        return e.max();
    }
}
