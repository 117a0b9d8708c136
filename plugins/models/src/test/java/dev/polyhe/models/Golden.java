package dev.polyhe.models;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.models.safetensors.SafetensorsFile;
import dev.polyhe.models.safetensors.TensorInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference checkpoints and outputs copied from the shared golden folder into the test resources:
 * inputs and expected tensors read with the plugin's own safetensors reader.
 */
final class Golden {
    static final Path ROOT = Path.of("src/test/resources/golden");
    static final List<String> MODELS = List.of("gpt_neox", "roberta", "vit");
    static final int CASES = 3;

    private Golden() {}

    static Path dir(String model) {
        return ROOT.resolve(model);
    }

    static List<ModelInput> inputs(String model) {
        List<ModelInput> out = new ArrayList<>();
        try (SafetensorsFile f = SafetensorsFile.open(dir(model).resolve("inputs.safetensors"))) {
            for (int k = 0; k < CASES; k++) {
                String ids = "case" + k + ".input_ids";
                if (f.names().contains(ids)) {
                    out.add(ModelInput.tokens(f.longs(ids)));
                } else {
                    String px = "case" + k + ".pixel_values";
                    long[] s = f.info(px).shape();
                    out.add(ModelInput.pixels(f.doubles(px), (int) s[1], (int) s[2], (int) s[3]));
                }
            }
        }
        return out;
    }

    /** Expected tensors of one attention kind ("softmax" or "powersoftmax"). */
    static final class Expected implements AutoCloseable {
        private final SafetensorsFile file;

        Expected(String model, String kind) {
            file = SafetensorsFile.open(dir(model).resolve("expected_" + kind + ".safetensors"));
        }

        boolean has(String name) {
            return file.names().contains(name);
        }

        /** A [1, rows, cols] or [1, cols] tensor as a matrix (batch of one dropped). */
        Matrix matrix(String name) {
            TensorInfo t = file.info(name);
            long[] s = t.shape();
            int rows = s.length == 3 ? (int) s[1] : 1;
            int cols = (int) s[s.length - 1];
            return new Matrix(rows, cols, file.doubles(name));
        }

        /** [1, heads, T, T] as one matrix per head. */
        List<Matrix> heads(String name) {
            long[] s = file.info(name).shape();
            int heads = (int) s[1];
            int t = (int) s[2];
            double[] all = file.doubles(name);
            List<Matrix> out = new ArrayList<>();
            for (int h = 0; h < heads; h++) {
                out.add(new Matrix(t, t, java.util.Arrays.copyOfRange(all, h * t * t, (h + 1) * t * t)));
            }
            return out;
        }

        @Override
        public void close() {
            file.close();
        }
    }
}
