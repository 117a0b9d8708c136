package dev.polyhe.core.engine.ckks;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The file the client and server exchange: named encrypted tensors (shape, layout, packing width), a few
 * metadata entries, and their
 * ciphertexts, each written by the backend's own versioned, checksummed serializer. A ciphertext shared by
 * several positions is written once. The header has a magic, a format version, the backend, the parameter
 * hash and a CRC32, so a truncated, corrupted or foreign file is refused with a message saying which.
 */
public final class EncryptedTensorFormat {
    private static final int MAGIC = 0x50484554; // "PHET"
    private static final int VERSION = 2;

    private EncryptedTensorFormat() {}

    public static void write(HeContext context, String backend, int packingSlots, Map<String, String> metadata,
            Map<String, CkksTensor> tensors, OutputStream out) throws IOException {
        for (var e : tensors.entrySet()) {
            if (e.getValue().layout == Layout.HEAD_DIAGONALS) {
                throw new IllegalArgumentException("tensor '" + e.getKey() + "' holds stacked attention scores, which "
                        + "stay inside the server; the file carries activations and outputs");
            }
        }
        ByteArrayOutputStream headerBytes = new ByteArrayOutputStream();
        DataOutputStream h = new DataOutputStream(headerBytes);
        h.writeUTF(backend);
        h.writeUTF(context.parameterHash());
        h.writeInt(packingSlots);
        h.writeInt(metadata.size());
        for (var m : metadata.entrySet()) {
            h.writeUTF(m.getKey());
            h.writeUTF(m.getValue());
        }
        h.writeInt(tensors.size());
        List<Ciphertext> unique = new ArrayList<>();
        Map<Ciphertext, Integer> index = new IdentityHashMap<>();
        for (var e : tensors.entrySet()) {
            CkksTensor t = e.getValue();
            h.writeUTF(e.getKey());
            h.writeByte(t.layout.ordinal());
            h.writeInt(t.rows);
            h.writeInt(t.cols);
            h.writeBoolean(t.clean);
            h.writeInt(t.perCiphertext);
            h.writeInt(t.cts.length);
            for (Ciphertext c : t.cts) {
                Integer i = index.get(c);
                if (i == null) {
                    i = unique.size();
                    index.put(c, i);
                    unique.add(c);
                }
                h.writeInt(i);
            }
        }
        h.writeInt(unique.size());
        h.flush();
        byte[] header = headerBytes.toByteArray();
        CRC32 crc = new CRC32();
        crc.update(header);
        DataOutputStream d = new DataOutputStream(out);
        d.writeInt(MAGIC);
        d.writeInt(VERSION);
        d.writeInt(header.length);
        d.write(header);
        d.writeLong(crc.getValue());
        d.flush();
        for (Ciphertext c : unique) {
            context.serializer().writeCiphertext(c, out);
        }
        out.flush();
    }

    /** The tensors, the packing width they were written with, and free-form metadata (model type, ...). */
    public record Contents(int packingSlots, Map<String, String> metadata, Map<String, CkksTensor> tensors) {
    }

    public static Contents read(HeContext context, String backend, InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        byte[] header;
        try {
            int magic = d.readInt();
            if (magic != MAGIC) {
                throw new HeException("not a PolyHE encrypted tensor file (bad magic 0x" + Integer.toHexString(magic)
                        + ")");
            }
            int version = d.readInt();
            if (version != VERSION) {
                throw new HeException("encrypted tensor file format version " + version + " is not supported; this "
                        + "PolyHE reads version " + VERSION);
            }
            int length = d.readInt();
            if (length < 0 || length > 64 << 20) {
                throw new HeException("encrypted tensor file is corrupted: header length " + length);
            }
            header = d.readNBytes(length);
            if (header.length != length) {
                throw new EOFException();
            }
            long expected = d.readLong();
            CRC32 crc = new CRC32();
            crc.update(header);
            if (crc.getValue() != expected) {
                throw new HeException("encrypted tensor file is corrupted: header checksum mismatch");
            }
        } catch (EOFException e) {
            throw new HeException("encrypted tensor file is truncated (its header ends early)");
        }
        DataInputStream h = new DataInputStream(new ByteArrayInputStream(header));
        String fileBackend = h.readUTF();
        String hash = h.readUTF();
        if (!fileBackend.equals(backend)) {
            throw new HeException("encrypted tensors were written by backend '" + fileBackend + "' but this run uses '"
                    + backend + "'");
        }
        if (!hash.equals(context.parameterHash())) {
            throw new HeException("encrypted tensors belong to parameter set " + hash + " but the keys are for "
                    + context.parameterHash());
        }
        int packingSlots = h.readInt();
        Map<String, String> metadata = new LinkedHashMap<>();
        int entries = h.readInt();
        for (int k = 0; k < entries; k++) {
            metadata.put(h.readUTF(), h.readUTF());
        }
        int count = h.readInt();
        Map<String, int[]> indices = new LinkedHashMap<>();
        Map<String, int[]> shapes = new LinkedHashMap<>();
        for (int k = 0; k < count; k++) {
            String name = h.readUTF();
            int layout = h.readByte();
            int rows = h.readInt();
            int cols = h.readInt();
            boolean clean = h.readBoolean();
            int perCiphertext = h.readInt();
            int n = h.readInt();
            int[] idx = new int[n];
            for (int i = 0; i < n; i++) {
                idx[i] = h.readInt();
            }
            indices.put(name, idx);
            shapes.put(name, new int[] {layout, rows, cols, clean ? 1 : 0, perCiphertext});
        }
        int unique = h.readInt();
        Ciphertext[] cts = new Ciphertext[unique];
        for (int i = 0; i < unique; i++) {
            try {
                cts[i] = context.serializer().readCiphertext(in);
            } catch (EOFException e) {
                throw new HeException("encrypted tensor file is truncated: ciphertext " + (i + 1) + " of " + unique
                        + " is missing");
            }
        }
        Map<String, CkksTensor> tensors = new LinkedHashMap<>();
        for (var e : indices.entrySet()) {
            int[] s = shapes.get(e.getKey());
            Ciphertext[] t = new Ciphertext[e.getValue().length];
            for (int i = 0; i < t.length; i++) {
                int j = e.getValue()[i];
                if (j < 0 || j >= unique) {
                    throw new HeException("encrypted tensor file is corrupted: ciphertext index " + j);
                }
                t[i] = cts[j];
            }
            if (s[0] < 0 || s[0] >= Layout.values().length || s[0] == Layout.HEAD_DIAGONALS.ordinal()) {
                throw new HeException("encrypted tensor file is corrupted: layout " + s[0]);
            }
            Layout layout = Layout.values()[s[0]];
            int expected = layout == Layout.COLUMNS ? s[2] : layout == Layout.BLOCKS && s[4] > 0
                    ? (s[2] + s[4] - 1) / s[4] : t.length;
            if (s[4] < 1 || Integer.bitCount(s[4]) != 1 || t.length != expected) {
                throw new HeException("encrypted tensor file is corrupted: tensor '" + e.getKey() + "' [" + s[1] + ", "
                        + s[2] + "] " + layout + " with " + s[4] + " per ciphertext cannot have " + t.length
                        + " ciphertexts");
            }
            tensors.put(e.getKey(), new CkksTensor(layout, s[1], s[2], t, s[3] == 1, s[4]));
        }
        return new Contents(packingSlots, metadata, tensors);
    }
}
