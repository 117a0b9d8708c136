package dev.polyhe.attention.softmax;

import dev.polyhe.api.Options;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.attention.kernel.DeclaredMechanism;
import dev.polyhe.attention.kernel.OptionRules;
import java.util.Set;

/** Service {@code softmax}: the exact reference (no options). */
public final class SoftmaxMechanism extends DeclaredMechanism {
    public static final String NAME = "softmax";

    public SoftmaxMechanism() {
        super(NAME, "exact softmax exp(x − max)/Σ (reference, plaintext only)", Set.of());
    }

    @Override
    public AttentionKernel create(Options options, Approximations approximations) {
        OptionRules.requireOnly(options, Set.of());
        return new ExactSoftmax();
    }
}
