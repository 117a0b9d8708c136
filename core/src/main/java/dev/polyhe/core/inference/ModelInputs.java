package dev.polyhe.core.inference;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelInput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A batch of model inputs from JSON, as Hugging Face processors produce them: {@code {"input_ids": [[...], ...]}}
 * (token ids, one list per sample) or {@code {"pixel_values": [[[[...]]]]}} ([batch, channels, height, width]).
 * Each sample runs on its own, so text samples may have different lengths. {@code attention_mask} is accepted
 * when it is all ones (no padding), anything else is refused rather than ignored.
 */
public final class ModelInputs {
    private ModelInputs() {}

    public static List<ModelInput> read(Path file) {
        return read(file, null);
    }

    /**
     * Reads {@code input_ids}, {@code pixel_values}, or {@code text} (a list of strings, tokenized by
     * {@code model}'s own tokenizer; null: text is refused).
     */
    public static List<ModelInput> read(Path file, Model model) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new InvalidInputException("input file " + file + " does not exist");
        } catch (IOException e) {
            throw new InvalidInputException("cannot read input file " + file + ": " + e.getMessage(), e);
        }
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new InvalidInputException("input file " + file + " is not valid JSON: " + e.getOriginalMessage());
        }
        return parse(root, file.toString(), model);
    }

    static List<ModelInput> parse(JsonNode root, String source) {
        return parse(root, source, null);
    }

    static List<ModelInput> parse(JsonNode root, String source, Model model) {
        if (root == null || !root.isObject()) {
            throw new InvalidInputException(source + ": expected a JSON object with 'input_ids' or 'pixel_values'");
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!List.of("input_ids", "pixel_values", "text", "attention_mask").contains(k)) {
                throw new InvalidInputException(
                        source + ": unknown key '" + k + "'; allowed: input_ids, pixel_values, text, attention_mask");
            }
        }
        boolean ids = root.has("input_ids");
        boolean pixels = root.has("pixel_values");
        boolean text = root.has("text");
        if ((ids ? 1 : 0) + (pixels ? 1 : 0) + (text ? 1 : 0) != 1) {
            throw new InvalidInputException(source + ": give exactly one of 'input_ids' (lists of token ids), "
                    + "'text' (a list of strings, for checkpoints with a tokenizer.json) or 'pixel_values' "
                    + "([batch, channels, height, width])");
        }
        List<ModelInput> out = ids
                ? tokens(root.get("input_ids"), source)
                : text ? texts(root.get("text"), source, model) : images(root.get("pixel_values"), source);
        if (root.has("attention_mask")) {
            checkMask(root.get("attention_mask"), out, source);
        }
        return out;
    }

    private static List<ModelInput> texts(JsonNode batch, String source, Model model) {
        if (!batch.isArray() || batch.isEmpty()) {
            throw new InvalidInputException(source + ": 'text' must be a non-empty list of strings");
        }
        if (model == null) {
            throw new InvalidInputException(source + ": 'text' needs a model to tokenize it; give input_ids");
        }
        List<ModelInput> out = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            if (!batch.get(i).isTextual()) {
                throw new InvalidInputException(source + ": text[" + i + "] is not a string");
            }
            long[] ids = model.tokenize(batch.get(i).asText());
            if (ids.length == 0) {
                throw new InvalidInputException(source + ": text[" + i + "] has no tokens");
            }
            out.add(ModelInput.tokens(ids));
        }
        return out;
    }

    private static List<ModelInput> tokens(JsonNode batch, String source) {
        if (!batch.isArray() || batch.isEmpty()) {
            throw new InvalidInputException(source + ": 'input_ids' must be a non-empty list of lists of token ids");
        }
        List<ModelInput> out = new ArrayList<>();
        for (int b = 0; b < batch.size(); b++) {
            JsonNode seq = batch.get(b);
            if (!seq.isArray() || seq.isEmpty()) {
                throw new InvalidInputException(
                        source + ": 'input_ids[" + b + "]' must be a non-empty list of token ids");
            }
            long[] ids = new long[seq.size()];
            for (int t = 0; t < ids.length; t++) {
                JsonNode v = seq.get(t);
                if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
                    throw new InvalidInputException(source + ": 'input_ids[" + b + "][" + t + "]' = " + v
                            + " is not a token id (a non-negative integer)");
                }
                ids[t] = v.asLong();
            }
            out.add(ModelInput.tokens(ids));
        }
        return out;
    }

    private static List<ModelInput> images(JsonNode batch, String source) {
        int[] shape = new int[4];
        JsonNode n = batch;
        for (int d = 0; d < 4; d++) {
            if (!n.isArray() || n.isEmpty()) {
                throw new InvalidInputException(source + ": 'pixel_values' must be nested lists of shape "
                        + "[batch, channels, height, width]; level " + d + " is not a non-empty list");
            }
            shape[d] = n.size();
            n = n.get(0);
        }
        List<ModelInput> out = new ArrayList<>();
        for (int b = 0; b < shape[0]; b++) {
            double[] values = new double[shape[1] * shape[2] * shape[3]];
            int i = 0;
            for (int c = 0; c < shape[1]; c++) {
                for (int y = 0; y < shape[2]; y++) {
                    JsonNode row = batch.path(b).path(c).path(y);
                    if (!row.isArray() || row.size() != shape[3]) {
                        throw new InvalidInputException(source + ": 'pixel_values[" + b + "][" + c + "][" + y
                                + "]' must hold " + shape[3] + " numbers (the shape is taken from the first entries)");
                    }
                    for (int x = 0; x < shape[3]; x++) {
                        JsonNode v = row.get(x);
                        if (!v.isNumber()) {
                            throw new InvalidInputException(source + ": 'pixel_values[" + b + "][" + c + "][" + y + "]["
                                    + x + "]' = " + v + " is not a number");
                        }
                        values[i++] = v.asDouble();
                    }
                }
            }
            if (batch.get(b).size() != shape[1] || batch.get(b).path(0).size() != shape[2]) {
                throw new InvalidInputException(
                        source + ": 'pixel_values[" + b + "]' does not have the shape of sample 0");
            }
            out.add(ModelInput.pixels(values, shape[1], shape[2], shape[3]));
        }
        return out;
    }

    private static void checkMask(JsonNode mask, List<ModelInput> inputs, String source) {
        for (int b = 0; b < inputs.size(); b++) {
            JsonNode row = mask.path(b);
            long[] ids = inputs.get(b).inputIds();
            if (ids == null || !row.isArray() || row.size() != ids.length) {
                throw new InvalidInputException(
                        source + ": 'attention_mask[" + b + "]' must match input_ids[" + b + "]");
            }
            for (JsonNode v : row) {
                if (v.asInt(-1) != 1) {
                    throw new InvalidInputException(
                            source + ": 'attention_mask[" + b + "]' has a 0: padded batches are "
                                    + "not supported; give each sequence unpadded (samples may differ in length)");
                }
            }
        }
    }
}
