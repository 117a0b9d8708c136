package dev.polyhe.attention.kernel;

import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.attention.AttentionMechanism;
import java.util.Set;
import java.util.TreeSet;

/**
 * What every mechanism of this plugin declares: name, description, accepted options, and the API version it
 * was built against (compiled in here, so it is this plugin's build-time version).
 */
public abstract class DeclaredMechanism implements AttentionMechanism {
    private final String name;
    private final String description;
    private final Set<String> options;

    protected DeclaredMechanism(String name, String description, Set<String> options) {
        this.name = name;
        this.description = description;
        this.options = Set.copyOf(options);
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

    @Override
    public final Set<String> optionNames() {
        return options;
    }

    /** Of a mechanism with a {@code division} option: those of its options that only Goldschmidt division takes. */
    @Override
    public final Set<String> divisionOptionNames() {
        if (!options.contains("division")) {
            return Set.of();
        }
        Set<String> d = new TreeSet<>(options);
        d.retainAll(RowInverse.GOLDSCHMIDT_OPTIONS);
        return Set.copyOf(d);
    }
}
