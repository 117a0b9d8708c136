package dev.polyhe.api.he;

public interface Decryptor {
    /** @throws HeException if the ciphertext is from another key set or parameter set */
    Plaintext decrypt(Ciphertext ciphertext);
}
