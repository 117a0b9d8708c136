package dev.polyhe.api.he;

/**
 * Optional capability of an {@link HeContext}: a backend whose kernel is a number-theoretic transform exposes
 * one limb's NTT here so that {@code polyhe bench ckks} can time it beside OpenFHE's. Nothing else uses it.
 */
public interface SingleLimbNtt {
    /** A task doing one forward NTT of one limb of the ring, in place on a prepared buffer. */
    Runnable nttOfOneLimb();
}
