package dev.polyhe.attention.relu;

import dev.polyhe.api.Options;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.DeclaredMechanism;
import dev.polyhe.attention.kernel.OptionRules;
import java.util.Map;
import java.util.Set;

/**
 * Service {@code scaled-relu} (Zimerman et al. 2024): options degree (of the Chebyshev ReLU, default 32) and
 * range (R > 0: the polynomial holds on [−R, R], default 8).
 */
public final class ScaledReluMechanism extends DeclaredMechanism {
    public static final String NAME = "scaled-relu";
    static final Set<String> OPTIONS = Set.of("degree", "range");

    public ScaledReluMechanism() {
        super(NAME, "Zimerman et al. 2024 scaled-ReLU attention ReLU(x)/L with a polynomial ReLU", OPTIONS);
    }

    @Override
    public AttentionKernel create(Options options, Approximations approximations) {
        OptionRules.requireOnly(options, OPTIONS);
        int degree = options.getInt("degree", 32);
        double range = OptionRules.positive(options, "range", 8, "the polynomial ReLU holds on [−range, range]");
        ScaledRelu kernel = new ScaledRelu(
                approximations, new Options(options.owner(), Map.of("degree", String.valueOf(degree))), range);
        kernel.relu(2);
        return kernel;
    }
}
