package dev.polyhe.core.inject;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.MapBinder;
import dev.polyhe.api.PolyHePlugin;
import dev.polyhe.api.approx.PolynomialApproximator;
import dev.polyhe.api.attention.AttentionMechanism;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.model.ModelArchitecture;
import dev.polyhe.core.config.PolyHeConfig;
import dev.polyhe.core.plugin.PluginRegistry;

/**
 * Binds every discovered provider into one {@code MapBinder<String, Service>} per kind, keyed by plugin
 * name, plus the config. Whatever needs a plugin asks for the map (or {@link dev.polyhe.core.Plugins}) and
 * selects by the name the config gives.
 */
public final class PolyHeModule extends AbstractModule {
    private final PluginRegistry registry;
    private final PolyHeConfig config;

    public PolyHeModule(PluginRegistry registry, PolyHeConfig config) {
        this.registry = registry;
        this.config = config;
    }

    @Override
    protected void configure() {
        bind(PluginRegistry.class).toInstance(registry);
        bind(PolyHeConfig.class).toInstance(config);
        bindAll(AttentionMechanism.class);
        bindAll(PolynomialApproximator.class);
        bindAll(HeBackend.class);
        bindAll(ModelArchitecture.class);
    }

    private <T extends PolyHePlugin> void bindAll(Class<T> service) {
        MapBinder<String, T> binder = MapBinder.newMapBinder(binder(), String.class, service);
        registry.providers(service)
                .forEach((name, provider) -> binder.addBinding(name).toInstance(provider));
    }
}
