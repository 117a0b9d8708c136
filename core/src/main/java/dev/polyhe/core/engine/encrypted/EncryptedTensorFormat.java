package dev.polyhe.core.engine.encrypted;

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
    /** 3 names the key set after the packing width; 2 (still read) did not. */
    private static final int VERSION = 3;

    private static final int OLDEST_READ = 2;

    private EncryptedTensorFormat() {}

    public static void write(
            HeContext context,
            String backend,
            int packingSlots,
            Map<String, String> metadata,
            Map<String, EncryptedTensor> tensors,
            OutputStream out)
            throws IOException {
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
        h.writeUTF(tensors.values().stream()
                .flatMap(t -> java.util.Arrays.stream(t.cts))
                .findFirst()
                .map(Ciphertext::keySetId)
                .orElse(""));
        h.writeInt(metadata.size());
        for (var m : metadata.entrySet()) {
            h.writeUTF(m.getKey());
            h.writeUTF(m.getValue());
        }
        h.writeInt(tensors.size());
        List<Ciphertext> unique = new ArrayList<>();
        Map<Ciphertext, Integer> index = new IdentityHashMap<>();
        for (var e : tensors.entrySet()) {
            EncryptedTensor t = e.getValue();
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
    public record Contents(int packingSlots, Map<String, String> metadata, Map<String, EncryptedTensor> tensors) {}

    /** A header's format version and bytes. */
    private record Header(int version, byte[] bytes) {
        DataInputStream fields() {
            return new DataInputStream(new ByteArrayInputStream(bytes));
        }
    }

    /** Magic, version, length and checksum checked: the header. */
    private static Header header(DataInputStream d) throws IOException {
        byte[] header;
        int version;
        try {
            int magic = d.readInt();
            if (magic != MAGIC) {
                throw new HeException(
                        "not a PolyHE encrypted tensor file (bad magic 0x" + Integer.toHexString(magic) + ")");
            }
            version = d.readInt();
            if (version < OLDEST_READ || version > VERSION) {
                throw new HeException("encrypted tensor file format version " + version + " is not supported; this "
                        + "PolyHE reads versions " + OLDEST_READ + " to " + VERSION);
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
        return new Header(version, header);
    }

    /** Which key set and packing a file was written for, from its header alone (nothing else is read). */
    /** @param keySetId the key set the ciphertexts were encrypted under; empty in a version-2 file (unknown) */
    public record Identity(String backend, String parameterHash, int packingSlots, String keySetId) {}

    /**
     * The file's {@link Identity}, so that a server can refuse a file of another key set or packing before it is
     * queued: magic, version and checksum are checked, the ciphertexts are not read.
     *
     * @throws HeException for a file that is not one, or is truncated or corrupted
     */
    public static Identity identify(InputStream in) throws IOException {
        Header header = header(new DataInputStream(in));
        DataInputStream h = header.fields();
        try {
            return new Identity(h.readUTF(), h.readUTF(), h.readInt(), header.version() >= 3 ? h.readUTF() : "");
        } catch (EOFException | java.io.UTFDataFormatException e) {
            throw new HeException("encrypted tensor file is corrupted: its header ends inside a field");
        }
    }

    public static Contents read(HeContext context, String backend, InputStream in) throws IOException {
        Header header = header(new DataInputStream(in));
        try {
            return contents(context, backend, header.version(), header.fields(), in);
        } catch (EOFException e) {
            throw new HeException("encrypted tensor file is corrupted: its header ends inside a field");
        } catch (java.io.UTFDataFormatException e) {
            throw new HeException("encrypted tensor file is corrupted: malformed text in its header");
        }
    }

    /** Most metadata entries and tensors a file may name (a model's outputs are two tensors and a few entries). */
    static final int MAX_ENTRIES = 1024;
    /**
     * Most entries of one tensor, 2^26 (512 MiB decrypted): logits of 128 tokens over a 250 000-token vocabulary fit;
     * a forged shape does not make its reader allocate more.
     */
    static final long MAX_TENSOR_ENTRIES = 1L << 26;

    /** What the header lists: the tensors' shapes and ciphertext indices, and how many ciphertexts follow. */
    private record Listing(
            int packingSlots,
            String keySetId,
            Map<String, String> metadata,
            Map<String, int[]> indices,
            Map<String, int[]> shapes,
            int unique) {}

    /**
     * The header's fields, each checked against a limit worked out from trusted values (the context's ring, the
     * packing width, the shapes already read) before anything is allocated on its word.
     */
    private static Listing listing(HeContext context, String backend, int version, DataInputStream h)
            throws IOException {
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
        int ringSlots = context.parameters().slots();
        int packingSlots = field("packing width", h.readInt(), 1, ringSlots);
        if (Integer.bitCount(packingSlots) != 1) {
            throw new HeException(
                    "encrypted tensor file is corrupted: packing width " + packingSlots + " is not a power of two");
        }
        // the key set: each ciphertext names its own, and the evaluator checks those
        String keySetId = version >= 3 ? h.readUTF() : "";
        Map<String, String> metadata = new LinkedHashMap<>();
        int entries = field("metadata entries", h.readInt(), 0, MAX_ENTRIES);
        for (int k = 0; k < entries; k++) {
            metadata.put(h.readUTF(), h.readUTF());
        }
        int count = field("tensor count", h.readInt(), 0, MAX_ENTRIES);
        Map<String, int[]> indices = new LinkedHashMap<>();
        Map<String, int[]> shapes = new LinkedHashMap<>();
        long references = 0;
        for (int k = 0; k < count; k++) {
            String name = h.readUTF();
            int layout = h.readByte();
            if (layout < 0 || layout >= Layout.values().length || layout == Layout.HEAD_DIAGONALS.ordinal()) {
                throw new HeException("encrypted tensor file is corrupted: tensor '" + name + "' has layout " + layout
                        + "; allowed: " + Layout.COLUMNS.ordinal() + " .. " + Layout.BLOCKS.ordinal());
            }
            Layout l = Layout.values()[layout];
            // a column holds at most P rows; a block or a diagonal ciphertext spans at most N/2 slots
            int rows = field("tensor '" + name + "' rows", h.readInt(), 1, packingSlots);
            int maxCols = l == Layout.DIAGONALS ? packingSlots : ringSlots * MAX_ENTRIES;
            int cols = field("tensor '" + name + "' columns", h.readInt(), 1, maxCols);
            boolean clean = h.readBoolean();
            int perCiphertext =
                    field("tensor '" + name + "' columns per ciphertext", h.readInt(), 1, ringSlots / packingSlots);
            int expected = l == Layout.COLUMNS
                    ? cols
                    : l == Layout.BLOCKS
                            ? (cols + perCiphertext - 1) / perCiphertext
                            : (packingSlots + perCiphertext - 1) / perCiphertext;
            if ((long) rows * cols > MAX_TENSOR_ENTRIES) {
                throw new HeException("encrypted tensor file is corrupted: tensor '" + name + "' [" + rows + ", " + cols
                        + "] has more than " + MAX_TENSOR_ENTRIES + " entries");
            }
            int n = field("tensor '" + name + "' ciphertext count", h.readInt(), expected, expected);
            if ((long) n * Integer.BYTES > h.available()) {
                throw new HeException("encrypted tensor file is corrupted: tensor '" + name + "' lists " + n
                        + " ciphertexts but its header has room for " + h.available() / Integer.BYTES);
            }
            int[] idx = new int[n];
            for (int i = 0; i < n; i++) {
                idx[i] = h.readInt();
            }
            references += n;
            indices.put(name, idx);
            shapes.put(name, new int[] {layout, rows, cols, clean ? 1 : 0, perCiphertext});
        }
        // every ciphertext written is referenced at least once
        int unique = field("ciphertext count", h.readInt(), 0, (int) Math.min(references, Integer.MAX_VALUE));
        for (var e : indices.entrySet()) {
            for (int j : e.getValue()) {
                if (j < 0 || j >= unique) {
                    throw new HeException("encrypted tensor file is corrupted: tensor '" + e.getKey()
                            + "' refers to ciphertext " + j + "; the file holds " + unique);
                }
            }
            int per = shapes.get(e.getKey())[4];
            if (Integer.bitCount(per) != 1) {
                throw new HeException("encrypted tensor file is corrupted: tensor '" + e.getKey() + "' holds " + per
                        + " columns per ciphertext, not a power of two");
            }
        }
        return new Listing(packingSlots, keySetId, metadata, indices, shapes, unique);
    }

    private static Contents contents(HeContext context, String backend, int version, DataInputStream h, InputStream in)
            throws IOException {
        Listing listing = listing(context, backend, version, h);
        Ciphertext[] cts = new Ciphertext[listing.unique()];
        for (int i = 0; i < cts.length; i++) {
            cts[i] = ciphertext(context, in, i, cts.length);
        }
        Map<String, EncryptedTensor> tensors = new LinkedHashMap<>();
        for (var e : listing.indices().entrySet()) {
            int[] s = listing.shapes().get(e.getKey());
            Ciphertext[] t = new Ciphertext[e.getValue().length];
            for (int i = 0; i < t.length; i++) {
                t[i] = cts[e.getValue()[i]];
            }
            tensors.put(e.getKey(), new EncryptedTensor(Layout.values()[s[0]], s[1], s[2], t, s[3] == 1, s[4]));
        }
        return new Contents(listing.packingSlots(), listing.metadata(), tensors);
    }

    private static Ciphertext ciphertext(HeContext context, InputStream in, int i, int of) throws IOException {
        try {
            return context.serializer().readCiphertext(in);
        } catch (EOFException e) {
            throw new HeException(
                    "encrypted tensor file is truncated: ciphertext " + (i + 1) + " of " + of + " is missing");
        }
    }

    /**
     * What {@link #scan} found: the file's identity and, by tensor, how many ciphertexts it holds.
     *
     * @param ciphertexts by tensor name, in the file's order
     */
    public record Scan(Identity identity, Map<String, Integer> ciphertexts) {}

    /**
     * Reads a whole file as {@link #read} does, every ciphertext through the backend's checked deserializer, but
     * keeps none of them: a multi-gigabyte file (a model's encrypted weights) is checked in the memory of one
     * ciphertext. Each ciphertext must be under the key set the header names, and nothing may follow the last.
     *
     * @throws HeException at the first thing wrong: truncated, corrupted, foreign, trailing bytes
     */
    public static Scan scan(HeContext context, String backend, InputStream in) throws IOException {
        Header header = header(new DataInputStream(in));
        Listing listing;
        try {
            listing = listing(context, backend, header.version(), header.fields());
        } catch (EOFException | java.io.UTFDataFormatException e) {
            throw new HeException("encrypted tensor file is corrupted: its header ends inside a field");
        }
        for (int i = 0; i < listing.unique(); i++) {
            String keySet = ciphertext(context, in, i, listing.unique()).keySetId();
            if (!listing.keySetId().isEmpty() && !listing.keySetId().equals(keySet)) {
                throw new HeException("encrypted tensor file mixes key sets: its header names " + listing.keySetId()
                        + " but ciphertext " + (i + 1) + " is under " + keySet);
            }
        }
        if (in.read() != -1) {
            throw new HeException("encrypted tensor file goes on past its last ciphertext");
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        listing.indices().forEach((name, idx) -> counts.put(name, idx.length));
        return new Scan(
                new Identity(backend, context.parameterHash(), listing.packingSlots(), listing.keySetId()), counts);
    }

    /** {@code value} if within [min, max], else a corrupted-file error naming the field, the value and the limit. */
    private static int field(String what, int value, int min, int max) {
        if (value < min || value > max) {
            throw new HeException("encrypted tensor file is corrupted: " + what + " = " + value + " is outside "
                    + (min == max ? "the only allowed value " + min : min + " .. " + max));
        }
        return value;
    }
}
