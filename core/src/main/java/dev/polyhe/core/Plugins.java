package dev.polyhe.core;

import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.approx.PolynomialApproximator;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.attention.AttentionMechanism;
import dev.polyhe.api.he.Availability;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.model.ModelArchitecture;
import dev.polyhe.core.config.PluginChoice;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Selection by name over the injected plugin maps. An unknown name fails listing the known ones; it is also
 * the {@link Approximations} lookup handed to attention mechanisms.
 */
public final class Plugins implements Approximations {
    private final Map<String, AttentionMechanism> attention;
    private final Map<String, PolynomialApproximator> approximators;
    private final Map<String, HeBackend> backends;
    private final Map<String, ModelArchitecture> models;

    @Inject
    Plugins(
            Map<String, AttentionMechanism> attention,
            Map<String, PolynomialApproximator> approximators,
            Map<String, HeBackend> backends,
            Map<String, ModelArchitecture> models) {
        this.attention = attention;
        this.approximators = approximators;
        this.backends = backends;
        this.models = models;
    }

    /** Thrown for a plugin name nobody provides; the message lists the known names. */
    public static final class UnknownPluginException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UnknownPluginException(String kind, String name, Set<String> known) {
            super("unknown " + kind + " '" + name + "'; known: "
                    + (known.isEmpty() ? "(none installed)" : String.join(", ", new TreeSet<>(known))));
        }
    }

    /** A backend that is installed but cannot run here (no GPU, no driver): the reason is the backend's. */
    public static final class UnavailablePluginException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        UnavailablePluginException(String kind, String name, String reason) {
            super(kind + " '" + name + "' is not available here: " + reason);
        }
    }

    private static <T> T select(Map<String, T> map, String kind, String name) {
        T t = map.get(name);
        if (t == null) {
            throw new UnknownPluginException(kind, name, map.keySet());
        }
        return t;
    }

    public AttentionMechanism attention(String name) {
        return select(attention, "attention mechanism", name);
    }

    /** Selects the mechanism and configures it with the choice's options (validated by the mechanism). */
    public AttentionKernel attention(PluginChoice choice) {
        AttentionMechanism m = attention(choice.name());
        return m.create(choice.toOptions("attention"), this);
    }

    @Override
    public PolynomialApproximator approximator(String name) {
        return select(approximators, "approximator", name);
    }

    @Override
    public Set<String> names() {
        return new TreeSet<>(approximators.keySet());
    }

    /** The backend by name, refused when it cannot run here (its availability's reason). */
    public HeBackend backend(String name) {
        HeBackend b = select(backends, "HE backend", name);
        Availability a = b.availability();
        if (!a.available()) {
            throw new UnavailablePluginException("HE backend", name, a.reason());
        }
        return b;
    }

    public ModelArchitecture model(String modelType) {
        return select(models, "model architecture (model_type)", modelType);
    }

    public Set<String> attentionNames() {
        return new TreeSet<>(attention.keySet());
    }
}
