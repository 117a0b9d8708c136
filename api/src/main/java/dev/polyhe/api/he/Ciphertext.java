package dev.polyhe.api.he;

/** An opaque encrypted vector of slots. Immutable: every evaluator operation returns a new one. */
public interface Ciphertext extends KeySetMember {
    /** Rescales left before the ciphertext reaches level 0. */
    int level();

    double scale();

    int slots();
}
