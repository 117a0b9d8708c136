package dev.polyhe.api.he;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Versioned binary format with a header (format version, backend name, parameter hash, key-set id) and a
 * checksum. Reading a blob from other parameters, another key set, another backend or a corrupted one throws
 * {@link HeException} naming what did not match.
 */
public interface HeSerializer {
    void writeParameters(CkksParameters parameters, OutputStream out) throws IOException;

    CkksParameters readParameters(InputStream in) throws IOException;

    void writeCiphertext(Ciphertext ciphertext, OutputStream out) throws IOException;

    Ciphertext readCiphertext(InputStream in) throws IOException;

    void writePlaintext(Plaintext plaintext, OutputStream out) throws IOException;

    Plaintext readPlaintext(InputStream in) throws IOException;

    void writePublicKey(PublicKey key, OutputStream out) throws IOException;

    PublicKey readPublicKey(InputStream in) throws IOException;

    void writeEvaluationKeys(EvaluationKeys keys, OutputStream out) throws IOException;

    EvaluationKeys readEvaluationKeys(InputStream in) throws IOException;

    /**
     * Reads an evaluation-keys blob through and checks every record as {@link #readEvaluationKeys} does, reading no
     * further than the first malformed one, without keeping the keys: a server checks an upload as it streams, in
     * the memory of one limb. The default reads the keys (and so holds them until it returns).
     *
     * @throws HeException at the first record that is not what the parameters make it (a count out of range, a
     *     coefficient not below its prime, a truncated blob, a wrong checksum)
     */
    default void checkEvaluationKeys(InputStream in) throws IOException {
        readEvaluationKeys(in);
    }

    /** The only way a secret key leaves memory: an explicit call. */
    void writeSecretKey(SecretKey key, OutputStream out) throws IOException;

    SecretKey readSecretKey(InputStream in) throws IOException;
}
