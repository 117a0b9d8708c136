/**
 * Encrypted inference as it is deployed: key folders in a client and a server half ({@link KeyFiles},
 * {@link KeySet}), {@link EncryptedInference} (keys, encryption, the server's evaluation, decryption), the bootstrap
 * planner, and the progress a server reports per block.
 */
package dev.polyhe.core.encrypted;
