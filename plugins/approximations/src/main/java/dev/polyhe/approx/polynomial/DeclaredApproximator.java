package dev.polyhe.approx.polynomial;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.approx.PolynomialApproximator;

/**
 * What every approximator of this plugin declares: name, description, and the API version it was built
 * against (compiled in here, so it is this plugin's build-time version).
 */
public abstract class DeclaredApproximator implements PolynomialApproximator {
    private final String name;
    private final String description;

    protected DeclaredApproximator(String name, String description) {
        this.name = name;
        this.description = description;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String apiVersion() {
        return PolyHeApi.VERSION;
    }

    @Override
    public final String description() {
        return description;
    }
}
