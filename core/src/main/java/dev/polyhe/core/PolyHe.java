package dev.polyhe.core;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.core.bench.AttentionBenchmark;
import dev.polyhe.core.bench.AttentionBenchmarkReport;
import dev.polyhe.core.config.ConfigException;
import dev.polyhe.core.config.ConfigLoader;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.config.PolyHeConfig;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inject.PolyHeModule;
import dev.polyhe.core.plugin.PluginDescriptor;
import dev.polyhe.core.plugin.PluginRegistry;
import java.nio.file.Path;
import java.util.List;

/**
 * The embedding entry point for host applications (and the launcher, which is one of them):
 *
 * <pre>{@code
 * try (PolyHe polyhe = PolyHe.builder().configFile(Path.of("polyhe.yaml")).pluginsDir(Path.of("plugins")).build()) {
 *     AttentionBenchmarkReport report = polyhe.runAttentionBenchmark();
 * }
 * }</pre>
 *
 * No static state: each instance has its own registry, plugin layers and injector, so several may coexist.
 * A config given to the builder is checked when the instance is built (plugin names, options), not when
 * first used; without one, the defaults are checked when a workload runs.
 */
public final class PolyHe implements AutoCloseable {
    private final PolyHeConfig config;
    private final PluginRegistry registry;
    private final Injector injector;
    private final Integer threads;
    private final boolean explicitConfig;
    /** Key sets made through this instance's façades: released by {@link #close()}. */
    private final List<AutoCloseable> resources = new java.util.concurrent.CopyOnWriteArrayList<>();

    private volatile boolean closed;

    private PolyHe(PolyHeConfig config, PluginRegistry registry, boolean explicitConfig, Integer threads) {
        this.threads = threads;
        this.explicitConfig = explicitConfig;
        this.config = config;
        this.registry = registry;
        this.injector = Guice.createInjector(Stage.PRODUCTION, new PolyHeModule(registry, config));
        if (explicitConfig) {
            validate();
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link PolyHe}; without a config, {@link PolyHeConfig#defaults()} is used. */
    public static final class Builder {
        private PolyHeConfig config;
        private Path configFile;
        private Path pluginsDir;
        private Integer threads;

        private Builder() {}

        public Builder config(PolyHeConfig config) {
            this.config = config;
            this.configFile = null;
            return this;
        }

        /** A YAML (.yaml/.yml) or JSON (.json) config file. */
        public Builder configFile(Path file) {
            this.configFile = file;
            this.config = null;
            return this;
        }

        /** A folder of plugin jars (or sub-folders of jars), each loaded into a module layer of its own. */
        public Builder pluginsDir(Path dir) {
            this.pluginsDir = dir;
            return this;
        }

        /** Threads (or devices) every HE backend of this instance computes with; default: the backend's own. */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads = " + threads + "; at least 1 is needed");
            }
            this.threads = threads;
            return this;
        }

        /**
         * @throws ConfigException for a malformed config or one naming unknown plugins or bad options
         * @throws dev.polyhe.core.plugin.PluginLoadException for refused plugins
         */
        public PolyHe build() {
            boolean explicit = configFile != null || config != null;
            PolyHeConfig cfg = configFile != null
                    ? ConfigLoader.load(configFile)
                    : config != null ? config : PolyHeConfig.defaults();
            return new PolyHe(cfg, PluginRegistry.discover(pluginsDir), explicit, threads);
        }
    }

    private void validate() {
        Plugins plugins = plugins();
        List<PluginChoice> attention = config.attention();
        for (int i = 0; i < attention.size(); i++) {
            try {
                plugins.attention(attention.get(i));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("config 'attention[" + i + "]': " + e.getMessage(), e);
            }
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("this PolyHe instance is closed");
        }
    }

    public PolyHeConfig config() {
        return config;
    }

    /** Every plugin found, sorted by kind and name. */
    public List<PluginDescriptor> pluginList() {
        ensureOpen();
        return registry.plugins();
    }

    public PluginRegistry registry() {
        return registry;
    }

    /** Selection of plugins by name. */
    public Plugins plugins() {
        ensureOpen();
        return injector.getInstance(Plugins.class);
    }

    /** Runs the config's attention mechanisms over its benchmark scores. */
    public AttentionBenchmarkReport runAttentionBenchmark() {
        ensureOpen();
        return new AttentionBenchmark(plugins()).run(config.attention(), config.benchmark());
    }

    /**
     * Model inference as the config's {@code inference} section says; its attention is
     * {@code inference.attention}, or the first entry of {@code attention}.
     */
    public InferenceService inference() {
        ensureOpen();
        var ic = config.inference();
        return ic.attention() != null
                ? new InferenceService(plugins(), ic, ic.attention(), "the config's inference.attention")
                : new InferenceService(plugins(), ic, config.attention().get(0), "the config's first attention");
    }

    /** An HE backend by name, computing with the builder's {@link Builder#threads} when given. */
    public HeBackend backend(String name) {
        HeBackend b = plugins().backend(name);
        return threads == null ? b : b.withParallelism(threads);
    }

    /**
     * Encrypted inference on a checkpoint folder with a backend ({@code "ckks-cpu"}), client and server roles.
     * Its attention is the config's when this instance was built with one, else the one the checkpoint declares
     * (config.json {@code polyhe_attention}), else softmax, approximated ({@link PrivateInference#attention()} says
     * which ran and why).
     */
    public PrivateInference privateInference(Path checkpoint, String backend) {
        ensureOpen();
        InferenceService service = inference();
        if (!explicitConfig) {
            service = service.withAttentionOf(checkpoint);
        }
        // an encrypted model (polyhe encrypt-model's folder) holds its weights' magnitudes, the ciphertexts apart
        boolean encryptedWeights = EncryptedModelFolder.isEncrypted(checkpoint);
        return new PrivateInference(
                service,
                encryptedWeights ? service.loadEncrypted(checkpoint) : service.load(checkpoint),
                backend(backend),
                this,
                encryptedWeights ? checkpoint : null);
    }

    /** Registers a key set to release on {@link #close()}. */
    <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    /** Forgets a key set its user released (a long-lived host would otherwise hold every one it ever made). */
    void untrack(AutoCloseable resource) {
        resources.remove(resource);
    }

    /** Releases every key set made through this instance's façades (their contexts and keys). */
    @Override
    public void close() {
        closed = true;
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception e) {
                // closing the others matters more than one failure to release
            }
        }
        resources.clear();
    }
}
