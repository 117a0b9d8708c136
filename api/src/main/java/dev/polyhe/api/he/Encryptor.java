package dev.polyhe.api.he;

public interface Encryptor {
    Ciphertext encrypt(Plaintext plaintext);
}
