package dev.polyhe.core.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelInput;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelInputsTest {
    private static List<ModelInput> parse(String json) throws Exception {
        return ModelInputs.parse(new ObjectMapper().readTree(json), "in.json");
    }

    private static String error(String json) {
        return assertThrows(InvalidInputException.class, () -> parse(json)).getMessage();
    }

    @Test
    void tokenBatchesMayHaveDifferentLengths() throws Exception {
        List<ModelInput> in = parse("{\"input_ids\": [[0, 5, 2], [0, 7]], \"attention_mask\": [[1, 1, 1], [1, 1]]}");
        assertEquals(2, in.size());
        assertArrayEquals(new long[] {0, 5, 2}, in.get(0).inputIds());
        assertArrayEquals(new long[] {0, 7}, in.get(1).inputIds());
    }

    @Test
    void pixelValuesAreFlattenedChannelRowColumn() throws Exception {
        List<ModelInput> in = parse("{\"pixel_values\": [[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]]}");
        assertEquals(1, in.size());
        assertArrayEquals(new int[] {2, 2, 2}, in.get(0).pixelShape());
        assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6, 7, 8}, in.get(0).pixelValues());
    }

    @Test
    void malformedInputsNameTheEntry() {
        assertTrue(error("{\"input_ids\": [[1, 2.5]]}").contains("'input_ids[0][1]' = 2.5 is not a token id"));
        assertTrue(error("{\"input_ids\": []}").contains("non-empty list"));
        assertTrue(error("{\"tokens\": [[1]]}").contains("unknown key 'tokens'"));
        assertTrue(error("{\"input_ids\": [[1]], \"pixel_values\": [[[[1]]]]}").contains("exactly one of"));
        assertTrue(
                error("{\"pixel_values\": [[[[1, 2], [3]]]]}").contains("'pixel_values[0][0][1]' must hold 2 numbers"));
        assertTrue(error("{\"input_ids\": [[1, 2]], \"attention_mask\": [[1, 0]]}")
                .contains("padded batches are not supported"));
    }

    @Test
    void textIsTokenizedByTheModelsOwnTokenizer() throws Exception {
        // A model whose only job here is tokenizing: one id per character.
        Model chars = new Model() {
            @Override
            public long[] tokenize(String text) {
                return text.chars().asLongStream().toArray();
            }

            @Override
            public dev.polyhe.api.model.ModelInfo info() {
                throw new UnsupportedOperationException();
            }

            @Override
            public dev.polyhe.api.Matrix embed(ModelInput input) {
                throw new UnsupportedOperationException();
            }

            @Override
            public <M> dev.polyhe.api.model.ModelOutput<M> forward(
                    dev.polyhe.api.arith.TensorOps<M> ops,
                    M e,
                    dev.polyhe.api.model.Nonlinearities nl,
                    LayerObserver observer) {
                throw new UnsupportedOperationException();
            }
        };
        List<ModelInput> in =
                ModelInputs.parse(new ObjectMapper().readTree("{\"text\": [\"ab\", \"c\"]}"), "in.json", chars);
        assertArrayEquals(new long[] {'a', 'b'}, in.get(0).inputIds());
        assertArrayEquals(new long[] {'c'}, in.get(1).inputIds());
        String noModel = error("{\"text\": [\"ab\"]}");
        assertTrue(noModel.contains("give input_ids"), noModel);
        String both = error("{\"text\": [\"ab\"], \"input_ids\": [[1]]}");
        assertTrue(both.contains("exactly one of"), both);
    }
}
