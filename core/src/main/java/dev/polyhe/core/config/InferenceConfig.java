package dev.polyhe.core.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * The {@code inference} section: which engine runs a model, its attention, and how the polynomial model
 * replaces each non-polynomial function (approximator and options; the domains come from a calibration file,
 * widened by {@code margin}).
 *
 * <pre>
 * inference:
 *   engine: poly                       # plain (exact), poly (every approximation applied, no encryption) or
 *                                      # ckks (the polynomial model on encrypted data; infer only)
 *   attention: {name: power-softmax, options: {p: 4, epsilon: 0.001}}
 *   calibration: cal.json              # optional; without it the poly engine calibrates on its own inputs
 *   margin: 0.1                        # domains = calibrated range widened by 10 %
 *   inv-sqrt: {name: goldschmidt-inv-sqrt, options: {iterations: 10}}
 *   gelu: {name: gelu-sigmoid, options: {degree: 31}}
 *   tanh: {name: chebyshev, options: {degree: 31}}
 *   attention-division: {division: goldschmidt, iterations: 22}  # options added to the attention in the poly model
 *                                      # (guess-degree: auto by default; 0 for the paper's Goldschmidt from 2/(lo+hi))
 *   backend: ckks-cuda                 # where a server (eval, serve, batch) evaluates; default: the backend the
 *                                      # client's key set names (any backend of its data format reads it)
 * </pre>
 *
 * @param attention null: the first entry of the config's {@code attention} list
 * @param calibration null: calibrate on the inputs being run
 * @param backend null: the backend each key set names
 */
public record InferenceConfig(
        Engine engine,
        PluginChoice attention,
        String calibration,
        double margin,
        PluginChoice invSqrt,
        PluginChoice gelu,
        PluginChoice tanh,
        Map<String, Object> attentionDivision,
        String backend) {

    /** Which engine a run uses. */
    public enum Engine {
        @JsonProperty("plain")
        PLAIN,
        @JsonProperty("poly")
        POLY,
        @JsonProperty("ckks")
        CKKS;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /*
     * Defaults measured on the tiny reference models (calibrated domains, margin 0.1): beyond them the error
     * against the exact model no longer falls, because it is then set by GELU ≈ x·σ(1.702x) itself. The causal
     * first rows of GPT-NeoX make PowerSoftmax denominators span ~[1e-3, 1e3], hence 22 division iterations.
     */
    public static final PluginChoice DEFAULT_INV_SQRT =
            new PluginChoice("goldschmidt-inv-sqrt", Map.of("iterations", 10));
    public static final PluginChoice DEFAULT_GELU = new PluginChoice("gelu-sigmoid", Map.of("degree", 31));
    public static final PluginChoice DEFAULT_TANH = new PluginChoice("chebyshev", Map.of("degree", 31));
    public static final Map<String, Object> DEFAULT_ATTENTION_DIVISION =
            Map.of("division", "goldschmidt", "iterations", 22);

    @JsonCreator
    public static InferenceConfig create(
            @JsonProperty("engine") Engine engine,
            @JsonProperty("attention") PluginChoice attention,
            @JsonProperty("calibration") String calibration,
            @JsonProperty("margin") Double margin,
            @JsonProperty("inv-sqrt") PluginChoice invSqrt,
            @JsonProperty("gelu") PluginChoice gelu,
            @JsonProperty("tanh") PluginChoice tanh,
            @JsonProperty("attention-division") Map<String, Object> attentionDivision,
            @JsonProperty("backend") String backend) {
        return new InferenceConfig(
                engine == null ? Engine.PLAIN : engine,
                attention,
                calibration,
                margin == null ? 0.1 : margin,
                invSqrt == null ? DEFAULT_INV_SQRT : invSqrt,
                gelu == null ? DEFAULT_GELU : gelu,
                tanh == null ? DEFAULT_TANH : tanh,
                attentionDivision == null ? DEFAULT_ATTENTION_DIVISION : attentionDivision,
                backend);
    }

    public static InferenceConfig defaults() {
        return create(null, null, null, null, null, null, null, null, null);
    }

    public InferenceConfig {
        AttentionBenchmarkConfig.require(margin >= 0 && margin <= 10, "margin", margin, "0 .. 10");
        attentionDivision = Map.copyOf(attentionDivision);
        attentionDivision.forEach((k, v) -> AttentionBenchmarkConfig.require(
                !(v instanceof Map || v instanceof java.util.Collection), "attention-division." + k, v, "a scalar"));
    }

    public InferenceConfig withEngine(Engine e) {
        return new InferenceConfig(e, attention, calibration, margin, invSqrt, gelu, tanh, attentionDivision, backend);
    }

    public InferenceConfig withAttention(PluginChoice a) {
        return new InferenceConfig(engine, a, calibration, margin, invSqrt, gelu, tanh, attentionDivision, backend);
    }

    /** The same section evaluating on {@code name} (null: the key set's backend). */
    public InferenceConfig withBackend(String name) {
        return new InferenceConfig(
                engine, attention, calibration, margin, invSqrt, gelu, tanh, attentionDivision, name);
    }

    public InferenceConfig withCalibration(String file) {
        return new InferenceConfig(engine, attention, file, margin, invSqrt, gelu, tanh, attentionDivision, backend);
    }
}
