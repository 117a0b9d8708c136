package dev.polyhe.core.inference;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.polyhe.core.config.ConfigException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The input ranges of every non-polynomial site of a model, recorded by running the exact model over sample
 * inputs ({@link CalibrationRecorder}); the polynomial model sets its approximation domains from it.
 *
 * @param modelType the model_type it was recorded for
 * @param attention the exact attention kernel it was recorded with (describe())
 * @param p the power used for the attention row statistics
 * @param samples number of inputs run
 */
public record Calibration(
        @JsonProperty("model_type") String modelType,
        String attention,
        int p,
        int samples,
        Map<String, SiteCalibration> sites) {

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    public Calibration {
        // sorted, so that calibration files diff cleanly
        sites = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(sites));
    }

    /** The site of the encrypted input, the embeddings (its function is the same name). */
    public static final String INPUT_SITE = "input_embeddings";

    /** The range of the embeddings seen, when this calibration recorded it (older files did not). */
    public java.util.Optional<SiteCalibration> inputRange() {
        return java.util.Optional.ofNullable(sites.get(INPUT_SITE));
    }

    /** The site's record, or a clear error when this calibration does not cover it. */
    public SiteCalibration site(String site, String function) {
        SiteCalibration s = sites.get(site);
        if (s == null) {
            throw new IllegalArgumentException("the calibration (model_type " + modelType + ") has no entry for "
                    + function + " site '" + site + "'; calibrate this model first (polyhe calibrate)");
        }
        if (!s.function().equals(function)) {
            throw new IllegalArgumentException(
                    "calibration site '" + site + "' was recorded for " + s.function() + ", not " + function);
        }
        return s;
    }

    public void write(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            JSON.writeValue(file.toFile(), this);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write calibration " + file + ": " + e.getMessage(), e);
        }
    }

    /** Where a served model folder ({@code polyhe serve}, {@code polyhe batch}) keeps its domains. */
    public static final String SERVED_FILE = "calibration.json";

    /**
     * The domains of a served model folder, from its {@value #SERVED_FILE}.
     *
     * @throws ConfigException naming the command that makes them when the folder has none
     */
    public static Calibration ofServedModel(Path dir) {
        Path file = dir.resolve(SERVED_FILE);
        if (!Files.isRegularFile(file)) {
            throw new ConfigException(dir + " has no " + SERVED_FILE + ": run 'polyhe calibrate --model " + dir
                    + " --input SAMPLES.json --output " + file + "'");
        }
        return read(file);
    }

    /** @throws ConfigException naming the file and what is wrong with it */
    public static Calibration read(Path file) {
        try {
            return JSON.readValue(Files.readString(file), Calibration.class);
        } catch (NoSuchFileException e) {
            throw new ConfigException("calibration file " + file + " does not exist");
        } catch (JsonProcessingException e) {
            throw new ConfigException("calibration file " + file + " is not valid: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigException("cannot read calibration file " + file + ": " + e.getMessage(), e);
        }
    }
}
