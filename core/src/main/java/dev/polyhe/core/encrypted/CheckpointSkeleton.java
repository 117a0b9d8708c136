package dev.polyhe.core.encrypted;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.model.CheckpointException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.Map;

/**
 * The magnitude skeleton of a checkpoint, what a server that runs the model on encrypted weights loads in place of
 * its {@code model.safetensors}: every float tensor with its name and shape, each entry its tensor's largest |value|
 * rounded up (BF16), so the model builds as it would and derives from its weights only bounds (a LayerNorm's output
 * bound), while the engine takes every weight itself from the owner's ciphertexts
 * ({@link dev.polyhe.core.engine.encrypted.EncryptedParameters}). Integer tensors (buffers) are copied as they are.
 */
public final class CheckpointSkeleton {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A header larger than this is not a checkpoint's (the format's own readers cap it alike). */
    private static final long MAX_HEADER = 100L << 20;

    private CheckpointSkeleton() {}

    /**
     * Writes the skeleton of {@code checkpointDir}'s {@code model.safetensors} to {@code out}.
     *
     * @return the tensors written
     * @throws CheckpointException naming the file and what is wrong with it
     */
    public static int write(Path checkpointDir, Path out) throws IOException {
        Path in = checkpointDir.resolve("model.safetensors");
        if (!Files.isRegularFile(in)) {
            throw new CheckpointException(checkpointDir + " has no model.safetensors: encrypt-model reads single-file "
                    + "safetensors checkpoints (a sharded one is not supported yet)");
        }
        try (FileChannel ch = FileChannel.open(in, StandardOpenOption.READ)) {
            ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readFully(ch, len, 0, in);
            long headerLength = len.flip().getLong();
            if (headerLength <= 0 || headerLength > MAX_HEADER || 8 + headerLength > ch.size()) {
                throw new CheckpointException(in + " is not a safetensors file: header length " + headerLength);
            }
            ByteBuffer hb = ByteBuffer.allocate((int) headerLength);
            readFully(ch, hb, 8, in);
            JsonNode header = JSON.readTree(new String(hb.array(), StandardCharsets.UTF_8));
            long data = 8 + headerLength;
            ObjectNode outHeader = JSON.createObjectNode();
            java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
            int count = 0;
            for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getKey().equals("__metadata__")) {
                    continue;
                }
                JsonNode t = e.getValue();
                String dtype = t.path("dtype").asText();
                long begin = t.path("data_offsets").path(0).asLong(-1);
                long end = t.path("data_offsets").path(1).asLong(-1);
                if (begin < 0 || end < begin || data + end > ch.size()) {
                    throw new CheckpointException(in + ": tensor '" + e.getKey() + "' has data offsets [" + begin + ", "
                            + end + "] outside the file");
                }
                ByteBuffer bytes =
                        ByteBuffer.allocate(Math.toIntExact(end - begin)).order(ByteOrder.LITTLE_ENDIAN);
                readFully(ch, bytes, data + begin, in);
                bytes.flip();
                ObjectNode o = outHeader.putObject(e.getKey());
                o.set("shape", t.path("shape"));
                long from = body.size();
                if (dtype.equals("I64")) {
                    o.put("dtype", "I64");
                    body.write(bytes.array(), 0, bytes.limit());
                } else {
                    o.put("dtype", "BF16");
                    short magnitude = bf16Above(maxAbs(bytes, dtype, in, e.getKey()));
                    long elements = bytes.limit() / width(dtype, in, e.getKey());
                    for (long i = 0; i < elements; i++) {
                        body.write(magnitude & 0xFF);
                        body.write((magnitude >>> 8) & 0xFF);
                    }
                }
                o.putArray("data_offsets").add(from).add(body.size());
                count++;
            }
            StringBuilder text = new StringBuilder(JSON.writeValueAsString(outHeader));
            while (text.length() % 8 != 0) {
                text.append(' ');
            }
            byte[] h = text.toString().getBytes(StandardCharsets.UTF_8);
            try (OutputStream os = Files.newOutputStream(out)) {
                os.write(ByteBuffer.allocate(8)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(h.length)
                        .array());
                os.write(h);
                body.writeTo(os);
            }
            return count;
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long at, Path file) throws IOException {
        long pos = at;
        while (b.hasRemaining()) {
            int n = ch.read(b, pos);
            if (n < 0) {
                throw new CheckpointException(file + " is truncated at byte " + pos);
            }
            pos += n;
        }
    }

    private static int width(String dtype, Path file, String name) {
        return switch (dtype) {
            case "F64" -> 8;
            case "F32" -> 4;
            case "F16", "BF16" -> 2;
            default ->
                throw new CheckpointException(
                        file + ": tensor '" + name + "' has dtype " + dtype + "; expected F64, F32, F16, BF16 or I64");
        };
    }

    private static double maxAbs(ByteBuffer b, String dtype, Path file, String name) {
        int w = width(dtype, file, name);
        double m = 0;
        for (int i = 0; i + w <= b.limit(); i += w) {
            double v = switch (dtype) {
                case "F64" -> b.getDouble(i);
                case "F32" -> b.getFloat(i);
                case "BF16" -> Float.intBitsToFloat((b.getShort(i) & 0xFFFF) << 16);
                default -> halfToFloat(b.getShort(i));
            };
            if (!Double.isFinite(v)) {
                throw new CheckpointException(file + ": tensor '" + name + "' holds " + v);
            }
            m = Math.max(m, Math.abs(v));
        }
        return m;
    }

    /** The smallest BF16 at least {@code v} (v ≥ 0): the F32's upper half, rounded up. */
    static short bf16Above(double v) {
        int bits = Float.floatToIntBits((float) v);
        if ((float) v < v) {
            bits++;
        }
        int upper = bits >>> 16;
        if ((bits & 0xFFFF) != 0) {
            upper++;
        }
        return (short) upper;
    }

    private static float halfToFloat(short h) {
        int s = (h >>> 15) & 1;
        int e = (h >>> 10) & 0x1F;
        int f = h & 0x3FF;
        double v = e == 0
                ? f * 0x1p-24
                : e == 31 ? (f == 0 ? Double.POSITIVE_INFINITY : Double.NaN) : (1 + f / 1024.0) * Math.pow(2, e - 15);
        return (float) (s == 1 ? -v : v);
    }
}
