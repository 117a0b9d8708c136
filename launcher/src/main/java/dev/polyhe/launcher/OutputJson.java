package dev.polyhe.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.Matrix;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/** The output JSON of {@code infer} and {@code decrypt}: outputs as nested lists with Hugging Face shapes. */
final class OutputJson {
    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper JSON = MAPPER;
    /** Report records as JSON, snake_case like every other output (NaN and infinities written as strings). */
    static final ObjectMapper REPORTS = MAPPER.copy().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    private OutputJson() {}

    /**
     * Stacks the samples as Hugging Face does: last_hidden_state [batch, T, H]; logits [batch, T, vocab] for a
     * causal LM (one row per position) and [batch, labels] for a classifier (one row). Samples of different
     * lengths cannot be stacked: then the shape lists each sample's.
     */
    static void putOutputs(ObjectNode json, String modelType, List<Matrix> hiddenStates, List<Matrix> logitsList) {
        boolean perPosition = modelType.equals("gpt_neox");
        ArrayNode hidden = json.putArray("last_hidden_state");
        hiddenStates.forEach(h -> hidden.add(rows(h)));
        json.set("last_hidden_state_shape", shape(hiddenStates, true));
        if (logitsList == null) {
            json.putNull("logits");
            json.putNull("logits_shape");
            return;
        }
        ArrayNode logits = json.putArray("logits");
        for (Matrix l : logitsList) {
            ArrayNode rows = rows(l);
            logits.add(perPosition || l.rows() > 1 ? rows : rows.get(0));
        }
        json.set(
                "logits_shape",
                shape(logitsList, perPosition || logitsList.get(0).rows() > 1));
    }

    static ArrayNode rows(Matrix m) {
        ArrayNode a = JSON.createArrayNode();
        for (int r = 0; r < m.rows(); r++) {
            ArrayNode row = a.addArray();
            for (int c = 0; c < m.cols(); c++) {
                row.add(m.get(r, c));
            }
        }
        return a;
    }

    static ArrayNode shape(List<Matrix> ms, boolean withRows) {
        ArrayNode s = JSON.createArrayNode();
        boolean uniform = ms.stream()
                .allMatch(m ->
                        m.rows() == ms.get(0).rows() && m.cols() == ms.get(0).cols());
        if (!uniform) {
            ms.forEach(m -> s.addArray().add(m.rows()).add(m.cols()));
            return s;
        }
        s.add(ms.size());
        if (withRows) {
            s.add(ms.get(0).rows());
        }
        s.add(ms.get(0).cols());
        return s;
    }

    static void write(ObjectNode json, Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                java.nio.file.Files.createDirectories(parent);
            }
            JSON.writeValue(file.toFile(), json);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
