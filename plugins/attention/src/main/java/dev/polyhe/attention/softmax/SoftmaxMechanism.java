package dev.polyhe.attention.softmax;

import dev.polyhe.api.Options;
import dev.polyhe.api.PolyHeApi;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.attention.AttentionMechanism;
import dev.polyhe.attention.kernel.OptionRules;
import java.util.Set;

/** Service {@code softmax}: the exact reference (no options). */
public final class SoftmaxMechanism implements AttentionMechanism {
    public static final String NAME = "softmax";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String apiVersion() {
        return PolyHeApi.VERSION;
    }

    @Override
    public String description() {
        return "exact softmax exp(x − max)/Σ (reference, plaintext only)";
    }

    @Override
    public Set<String> optionNames() {
        return Set.of();
    }

    @Override
    public AttentionKernel create(Options options, Approximations approximations) {
        OptionRules.requireOnly(options, Set.of());
        return new ExactSoftmax();
    }
}
