package dev.polyhe.core.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The root of a config file (YAML or JSON). Unknown keys are errors.
 *
 * <pre>
 * workload: attention-benchmark
 * attention:
 *   - name: power-softmax
 *     options: {p: 4, epsilon: 0.001}
 * benchmark: {length: 128, rows: 16}
 * inference: {engine: poly, margin: 0.1}   # see InferenceConfig
 * </pre>
 */
public record PolyHeConfig(
        Workload workload,
        List<PluginChoice> attention,
        AttentionBenchmarkConfig benchmark,
        InferenceConfig inference) {

    /** What {@code polyhe run} does with the config. */
    public enum Workload {
        @JsonProperty("attention-benchmark")
        ATTENTION_BENCHMARK
    }

    @JsonCreator
    public static PolyHeConfig create(
            @JsonProperty("workload") Workload workload,
            @JsonProperty("attention") List<PluginChoice> attention,
            @JsonProperty("benchmark") AttentionBenchmarkConfig benchmark,
            @JsonProperty("inference") InferenceConfig inference) {
        return new PolyHeConfig(
                workload,
                attention == null ? List.of(PluginChoice.of("power-softmax")) : attention,
                benchmark,
                inference == null ? InferenceConfig.defaults() : inference);
    }

    /** The workload of {@code polyhe run}: the declared one, else the attention benchmark. */
    @Override
    public Workload workload() {
        return workload == null ? Workload.ATTENTION_BENCHMARK : workload;
    }

    /** The attention benchmark's settings: the declared ones, else the defaults. */
    @Override
    public AttentionBenchmarkConfig benchmark() {
        return benchmark == null ? AttentionBenchmarkConfig.defaults() : benchmark;
    }

    /**
     * Whether the config says what {@code polyhe run} should do: a {@code workload}, or a {@code benchmark} section
     * for it. A config of an {@code inference} section alone is for infer, calibrate, encrypt and eval.
     */
    public boolean declaresWorkload() {
        return workload != null || benchmark != null;
    }

    public PolyHeConfig {
        if (attention.isEmpty()) {
            throw new IllegalArgumentException("'attention' is empty; list at least one mechanism");
        }
        attention = List.copyOf(attention);
    }

    /** The same config with another inference section (command-line overrides). */
    public PolyHeConfig withInference(InferenceConfig i) {
        return new PolyHeConfig(workload, attention, benchmark, i);
    }

    public static PolyHeConfig defaults() {
        return create(null, null, null, null);
    }
}
