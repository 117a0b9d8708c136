package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.HeException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The framing of every ckks-cpu blob:
 * <pre>
 *   magic "PHEB" | u16 format version | u8 kind | UTF backend | UTF parameter hash | UTF key-set id
 *   | payload (kind-specific) | u32 CRC32 of everything before it
 * </pre>
 * Readers check magic, version, kind, backend and parameter hash as they go and the checksum at the end,
 * so a foreign, stale or corrupted blob is refused with a message naming what did not match.
 */
final class BlobFormat {
    static final int MAGIC = 0x50484542; // "PHEB"
    /** 3: the encapsulation key s → s' is on q_0·p_0 alone (2 had it on q_0·P). */
    static final int VERSION = 3;

    static final String BACKEND = "ckks-cpu";

    enum Kind {
        PARAMETERS,
        CIPHERTEXT,
        PLAINTEXT,
        PUBLIC_KEY,
        EVALUATION_KEYS,
        SECRET_KEY;

        String label() {
            return name().toLowerCase().replace('_', ' ');
        }
    }

    private BlobFormat() {}

    /** A blob being written: header already out, payload next, then {@link #finish()}. */
    static final class Writer {
        final DataOutputStream data;
        private final CheckedOutputStream checked;
        private final OutputStream raw;
        private final byte[] buffer = new byte[8 * 4096];

        Writer(OutputStream out, Kind kind, String parameterHash, String keySetId) throws IOException {
            this.raw = out;
            this.checked = new CheckedOutputStream(out, new CRC32());
            this.data = new DataOutputStream(checked);
            data.writeInt(MAGIC);
            data.writeShort(VERSION);
            data.writeByte(kind.ordinal());
            data.writeUTF(BACKEND);
            data.writeUTF(parameterHash);
            data.writeUTF(keySetId == null ? "" : keySetId);
        }

        void limbs(long[][] limbs, int count) throws IOException {
            for (int i = 0; i < count; i++) {
                limb(limbs[i]);
            }
        }

        void limb(long[] limb) throws IOException {
            ByteBuffer bb = ByteBuffer.wrap(buffer).order(ByteOrder.LITTLE_ENDIAN);
            int per = buffer.length / 8;
            for (int off = 0; off < limb.length; off += per) {
                int len = Math.min(per, limb.length - off);
                bb.clear();
                for (int c = 0; c < len; c++) {
                    bb.putLong(limb[off + c]);
                }
                data.write(buffer, 0, len * 8);
            }
        }

        void finish() throws IOException {
            data.flush();
            int crc = (int) checked.getChecksum().getValue();
            new DataOutputStream(raw).writeInt(crc);
            raw.flush();
        }
    }

    /** A blob being read: header checked, payload next, then {@link #finish()} verifies the checksum. */
    static final class Reader {
        final DataInputStream data;
        final String keySetId;
        private final CheckedInputStream checked;
        private final InputStream raw;
        private final Kind kind;
        private final byte[] buffer = new byte[8 * 4096];

        Reader(InputStream in, Kind expected, String expectedHash) throws IOException {
            this.raw = in;
            this.checked = new CheckedInputStream(in, new CRC32());
            this.data = new DataInputStream(checked);
            this.kind = expected;
            try {
                int magic = data.readInt();
                if (magic != MAGIC) {
                    throw new HeException(
                            String.format("not a PolyHE blob: magic 0x%08x, expected 0x%08x", magic, MAGIC));
                }
                int version = data.readUnsignedShort();
                if (version != VERSION) {
                    throw new HeException(
                            "blob format version " + version + " is not supported; this reader reads " + VERSION);
                }
                int k = data.readUnsignedByte();
                if (k != expected.ordinal()) {
                    String got = k < Kind.values().length ? Kind.values()[k].label() : "unknown kind " + k;
                    throw new HeException("blob holds a " + got + ", expected a " + expected.label());
                }
                String backend = data.readUTF();
                if (!backend.equals(BACKEND)) {
                    throw new HeException("blob was written by backend '" + backend + "', this is " + BACKEND);
                }
                String hash = data.readUTF();
                if (expectedHash != null && !hash.equals(expectedHash)) {
                    throw new HeException(
                            "blob was written for parameter set " + hash + " but this context has " + expectedHash);
                }
                keySetId = data.readUTF();
            } catch (EOFException e) {
                throw new HeException("blob is truncated: it ends inside the header of a " + expected.label(), e);
            } catch (java.io.UTFDataFormatException e) {
                throw new HeException("blob is corrupted: malformed header text", e);
            }
        }

        int intInRange(String what, int min, int max) throws IOException {
            int v = data.readInt();
            if (v < min || v > max) {
                throw new HeException("blob is corrupted: " + what + " = " + v + " is outside " + min + " .. " + max);
            }
            return v;
        }

        void limb(long[] limb, long modulus) throws IOException {
            ByteBuffer bb = ByteBuffer.wrap(buffer).order(ByteOrder.LITTLE_ENDIAN);
            int per = buffer.length / 8;
            for (int off = 0; off < limb.length; off += per) {
                int len = Math.min(per, limb.length - off);
                data.readFully(buffer, 0, len * 8);
                bb.clear();
                for (int c = 0; c < len; c++) {
                    long v = bb.getLong();
                    if (v < 0 || v >= modulus) {
                        throw new HeException(
                                "blob is corrupted: coefficient " + v + " is not below its prime " + modulus);
                    }
                    limb[off + c] = v;
                }
            }
        }

        void finish() throws IOException {
            int expected = (int) checked.getChecksum().getValue();
            int stored = new DataInputStream(raw).readInt();
            if (stored != expected) {
                throw new HeException(String.format(
                        "blob is corrupted: checksum 0x%08x does not match the content " + "(0x%08x) of this %s",
                        stored, expected, kind.label()));
            }
        }
    }
}
