package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;

/**
 * Sparse-secret encapsulation (Bossuat, Troncoso-Pastoriza and Hubaux, ACNS 2022): the key set's secret s
 * is dense, which the HE standard's table covers, and only ModRaise runs under an ephemeral sparse secret s'
 * of {@link BootstrapParameters#EPHEMERAL_HAMMING_WEIGHT} non-zero entries, which keeps ModRaise's integer
 * part I small (K = 12 instead of about 420 for a dense s).
 *
 * <p>Two keys make it: s → s' for level 0 only, an RLWE sample under s' modulo q_0·p_0 (the first special prime)
 * and nothing larger (its other limbs are never made), and s' → s over the full Q·P, an RLWE sample under the
 * dense s. The sparse secret is thus exposed modulo q_0·p_0 alone, 2^112 on N16-boot-128, as in the paper's own
 * N = 2^16 parameter sets (2^121 there, e.g. Lattigo's N16QP1767H32768H32); a smaller modulus only makes the
 * lattice problem harder. docs/security.md gives the figures.
 */
public interface SecretEncapsulation {
    /** A level-0 ciphertext under s, re-encrypted under s' (still modulo q_0). */
    Ciphertext toEphemeral(Ciphertext levelZero);

    /** A ciphertext under s', at any level, re-encrypted under s. */
    Ciphertext toMain(Ciphertext underEphemeral);
}
