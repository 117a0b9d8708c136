package dev.polyhe.api.he;

/** An encoded (not encrypted) vector of slots. */
public interface Plaintext {
    int level();

    double scale();

    int slots();

    String parameterHash();
}
