package dev.polyhe.api.he;

import java.util.Set;

/** What the server holds: relinearization, rotation, conjugation and bootstrapping keys. */
public interface EvaluationKeys extends KeySetMember {
    Set<Integer> rotationSteps();

    boolean hasConjugation();

    boolean hasBootstrapping();

    /** Size in bytes of the relinearization key. */
    long relinearizationKeyBytes();

    /** Total size in bytes of all rotation (and conjugation) keys. */
    long rotationKeyBytes();
}
