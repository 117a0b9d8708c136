package dev.polyhe.api.he;

/** Something bound to one parameter set and one key set; mixing them fails before any arithmetic. */
public interface KeySetMember {
    String parameterHash();

    /** Identifies the secret key everything in the set derives from (not the key itself). */
    String keySetId();
}
