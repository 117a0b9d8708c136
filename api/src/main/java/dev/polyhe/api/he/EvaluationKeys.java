package dev.polyhe.api.he;

import java.util.Set;

/** What the server holds: relinearization, rotation, conjugation and bootstrapping keys. */
public interface EvaluationKeys extends KeySetMember {
    Set<Integer> rotationSteps();

    boolean hasConjugation();

    boolean hasBootstrapping();

    /**
     * The slot counts these keys bootstrap; empty without bootstrapping. The default, for backends whose
     * bootstrapping keys serve every count, names none in particular and answers for all through
     * {@link #bootstraps(int)}.
     */
    default Set<Integer> bootstrapSlots() {
        return Set.of();
    }

    /** Whether a ciphertext of this many slots can be bootstrapped with these keys. */
    default boolean bootstraps(int slots) {
        return hasBootstrapping()
                && (bootstrapSlots().isEmpty() || bootstrapSlots().contains(slots));
    }

    /** Size in bytes of the relinearization key. */
    long relinearizationKeyBytes();

    /**
     * Total size in bytes of every other key: rotations, conjugation, and any key that only bootstrapping
     * uses.
     */
    long rotationKeyBytes();
}
