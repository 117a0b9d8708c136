package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.inference.InferenceService;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The config file and the attention flags that override it: how every model command builds its pipeline. */
final class PipelineOptions {
    @Option(
            names = "--config",
            paramLabel = "CFG",
            description = "Config file (YAML or JSON); the flags below override it.")
    Path config;

    @Option(
            names = "--attention",
            paramLabel = "NAME",
            description = "Attention mechanism (e.g. softmax, power-softmax); default: the config's, else the "
                    + "checkpoint's (declared, else softmax).")
    String attention;

    @Option(
            names = "--attention-opt",
            paramLabel = "KEY=VALUE",
            description = "Option of the attention mechanism (repeatable), e.g. --attention-opt p=4 "
                    + "--attention-opt epsilon=0.001.")
    Map<String, String> attentionOptions = new LinkedHashMap<>();

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    Integer threads;

    /** Refused as it is parsed, before any model or key is read. */
    @Option(
            names = "--threads",
            paramLabel = "T",
            description =
                    "Worker threads of the HE backend (default: all cores). From 4 up the encrypted engine also runs "
                            + "independent ciphertexts at once (a linear map's output blocks, an attention's shifts).")
    void threads(int t) {
        if (t < 1) {
            throw new ParameterException(command.commandLine(), "--threads must be >= 1, got " + t);
        }
        threads = t;
    }

    PolyHe open(CommonOptions common) {
        PolyHe.Builder b = PolyHe.builder().pluginsDir(common.pluginsDir);
        if (config != null) {
            b.configFile(config);
        }
        if (threads != null) {
            b.threads(threads);
        }
        return b.build();
    }

    /**
     * The service for one checkpoint: the attention given on the command line or by a config file, else the
     * checkpoint's own ({@link InferenceService#withAttentionOf}: the declared one, else softmax, approximated in the
     * polynomial model). The service says which and why ({@link InferenceService#describeAttention}).
     */
    InferenceService service(PolyHe polyhe, Path checkpoint) {
        if (attention != null || !attentionOptions.isEmpty() || config != null) {
            return service(polyhe);
        }
        return polyhe.inference().withAttentionOf(checkpoint);
    }

    /** The config's inference service with the command-line attention applied. */
    InferenceService service(PolyHe polyhe) {
        InferenceService service = polyhe.inference();
        if (attention == null && attentionOptions.isEmpty()) {
            return service;
        }
        PluginChoice base = service.attention();
        Map<String, Object> options = new LinkedHashMap<>();
        if (attention == null || attention.equals(base.name())) {
            options.putAll(base.options());
        }
        options.putAll(attentionOptions);
        return service.withAttention(
                new PluginChoice(attention != null ? attention : base.name(), options),
                attention != null ? "--attention" : "--attention-opt on " + service.attentionSource());
    }
}
