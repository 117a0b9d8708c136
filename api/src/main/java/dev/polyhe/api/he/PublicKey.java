package dev.polyhe.api.he;

/** The public encryption key. */
public interface PublicKey extends KeySetMember {}
