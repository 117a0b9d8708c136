package dev.polyhe.core.plugin;

import dev.polyhe.api.PolyHePlugin;
import dev.polyhe.api.approx.PolynomialApproximator;
import dev.polyhe.api.attention.AttentionMechanism;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.model.ModelArchitecture;

/** The four service kinds, with the names listings and configs use for them. */
public enum PluginKind {
    ATTENTION("attention", AttentionMechanism.class),
    APPROXIMATION("approximation", PolynomialApproximator.class),
    HE_BACKEND("he-backend", HeBackend.class),
    MODEL("model", ModelArchitecture.class);

    private final String label;
    private final Class<? extends PolyHePlugin> service;

    PluginKind(String label, Class<? extends PolyHePlugin> service) {
        this.label = label;
        this.service = service;
    }

    public String label() {
        return label;
    }

    public Class<? extends PolyHePlugin> service() {
        return service;
    }

    @Override
    public String toString() {
        return label;
    }
}
