package dev.polyhe.ckks.executor;

/**
 * A polynomial decomposed into gadget digits, each raised to Q_level ∪ P (ModUp), held by the executor that made
 * it: what hoisted rotations share between several keys.
 */
public interface KeySwitchDigits {
    int level();
}
