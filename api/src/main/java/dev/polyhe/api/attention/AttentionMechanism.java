package dev.polyhe.api.attention;

import dev.polyhe.api.Options;
import dev.polyhe.api.PolyHePlugin;
import dev.polyhe.api.approx.Approximations;
import java.util.Set;

/**
 * Service: a way to normalize attention scores (softmax, PowerSoftmax and its variants, baselines). The
 * mechanism validates its options and returns a configured {@link AttentionKernel}; it gets any polynomial
 * approximation it needs (a Goldschmidt division) through {@code approximations}.
 */
public interface AttentionMechanism extends PolyHePlugin {
    /** @return the option keys {@link #create} accepts; anything else is an error */
    Set<String> optionNames();

    /**
     * The option keys that configure only a polynomial division, where {@link #optionNames} has a {@code division}
     * option that selects one (PowerSoftmax's Goldschmidt {@code iterations}, {@code lo}, {@code hi}): a host that
     * runs the same mechanism with {@code division=exact} (the exact model that calibrates the polynomial one) drops
     * them. None by default.
     *
     * @return the division's option keys
     */
    default Set<String> divisionOptionNames() {
        return Set.of();
    }

    /**
     * A kernel configured by the options.
     *
     * @param options the mechanism's options, each among {@link #optionNames}
     * @param approximations where to get the polynomial approximations the kernel needs
     * @return the configured kernel
     * @throws dev.polyhe.api.Options.InvalidOptionException naming the bad option, its value and what is allowed
     */
    AttentionKernel create(Options options, Approximations approximations);
}
