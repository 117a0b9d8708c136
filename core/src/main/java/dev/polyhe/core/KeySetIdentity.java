package dev.polyhe.core;

import dev.polyhe.core.encrypted.KeyFiles;
import dev.polyhe.core.engine.encrypted.EncryptedTensorFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Which key set a key folder holds, or which one an encrypted file was written for, read without loading a key: a
 * host routes a query to its keys, or refuses it, before anything heavy is read.
 *
 * @param keySetId the key set itself; empty for a file of format 2, which does not name it
 */
public record KeySetIdentity(String backend, String parameterHash, int packingSlots, String keySetId) {

    /** The server half of a key folder ({@code KEYS/server}, or a folder holding its files). */
    public static KeySetIdentity ofKeyFolder(Path dir) throws IOException {
        Path half = KeyFiles.serverHalf(dir);
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(half.resolve(KeyFiles.KEYSET))) {
            p.load(in);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(
                    half.resolve(KeyFiles.KEYSET) + " (not a PolyHE key folder: run 'polyhe " + "keys generate')");
        } catch (IllegalArgumentException e) {
            throw new IOException(half.resolve(KeyFiles.KEYSET) + " is malformed: " + e.getMessage(), e);
        }
        String slots = p.getProperty("packing-slots");
        if (p.getProperty("backend") == null || p.getProperty("parameter-hash") == null || slots == null) {
            throw new IOException(half.resolve(KeyFiles.KEYSET) + " names no backend, parameter hash or packing");
        }
        try {
            return new KeySetIdentity(
                    p.getProperty("backend"),
                    p.getProperty("parameter-hash"),
                    Integer.parseInt(slots.trim()),
                    p.getProperty("key-set-id", ""));
        } catch (NumberFormatException e) {
            throw new IOException(half.resolve(KeyFiles.KEYSET) + ": packing-slots '" + slots + "' is not a number");
        }
    }

    /**
     * The header of an encrypted file ({@code polyhe encrypt}, a server's answer): magic, version and checksum are
     * checked, the ciphertexts are not read.
     *
     * @throws dev.polyhe.api.he.HeException for a file that is not one, or is truncated or corrupted
     */
    public static KeySetIdentity ofEncryptedFile(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            var id = EncryptedTensorFormat.identify(in);
            return new KeySetIdentity(id.backend(), id.parameterHash(), id.packingSlots(), id.keySetId());
        }
    }

    /**
     * Why a file of identity {@code file} cannot be evaluated with this key set, or null when it can: another
     * backend or parameters, another packing, or (when both name it) another key set with the same parameters.
     */
    public String mismatch(KeySetIdentity file) {
        if (!backend.equals(file.backend) || !parameterHash.equals(file.parameterHash)) {
            return "it was encrypted under another key set (backend " + file.backend + ", parameters "
                    + file.parameterHash + "; this key set: " + backend + ", " + parameterHash + ")";
        }
        if (packingSlots != file.packingSlots) {
            return "it was packed for " + file.packingSlots + " slots per column but this key set packs "
                    + packingSlots;
        }
        if (!keySetId.isEmpty() && !file.keySetId.isEmpty() && !keySetId.equals(file.keySetId)) {
            return "it was encrypted under another key set with the same parameters and packing (key set "
                    + file.keySetId + "; this one: " + keySetId + ")";
        }
        return null;
    }
}
