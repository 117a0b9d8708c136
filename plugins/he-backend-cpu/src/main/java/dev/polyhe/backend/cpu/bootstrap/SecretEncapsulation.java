package dev.polyhe.backend.cpu.bootstrap;

import dev.polyhe.api.he.Ciphertext;

/**
 * Sparse-secret encapsulation (Bossuat, Troncoso-Pastoriza and Hubaux, ACNS 2022): the key set's secret s
 * is dense, which the HE standard's table covers, and only ModRaise runs under an ephemeral sparse secret s'
 * of {@link BootstrapParameters#EPHEMERAL_HAMMING_WEIGHT} non-zero entries, which keeps ModRaise's integer
 * part I small (K = 12 instead of about 420 for a dense s).
 *
 * <p>Two keys make it: s → s' for level 0 only, an RLWE sample under s' modulo q_0·P and nothing larger
 * (its other limbs are never made), and s' → s over the full Q·P, an RLWE sample under the dense s. A sparse
 * secret is only ever exposed modulo q_0·P (2^472 on N16-boot-128), under a third of the modulus at which
 * the published 128-bit sparse sets (N = 2^16, h = 192, log QP ≈ 1550; the paper's HEaaN FGb and Lattigo's
 * defaults) already stand, and a smaller modulus only makes the lattice problem harder.
 */
public interface SecretEncapsulation {
    /** A level-0 ciphertext under s, re-encrypted under s' (still modulo q_0). */
    Ciphertext toEphemeral(Ciphertext levelZero);

    /** A ciphertext under s', at any level, re-encrypted under s. */
    Ciphertext toMain(Ciphertext underEphemeral);
}
