package dev.polyhe.models.safetensors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.model.CheckpointException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A safetensors file, read by memory-mapping: 8 bytes little-endian header length N, N bytes of JSON header,
 * then the data buffer. The header is validated completely when the file is opened (length inside the file,
 * JSON object, known dtypes, offsets inside the data buffer, byte size = dtype size × shape product, no two
 * tensors overlapping), so a bad file fails before any weight is used, with the file and tensor named.
 * Tensor bytes are mapped on demand, one region per tensor, so files above 2 GiB work too.
 */
public final class SafetensorsFile implements TensorSource {
    /** The reference implementation refuses headers above 100 MB; a larger length means a corrupt file. */
    static final long MAX_HEADER_BYTES = 100L * 1024 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path path;
    private final FileChannel channel;
    private final long dataStart;
    private final Map<String, TensorInfo> tensors;
    private final Map<String, String> metadata;

    private SafetensorsFile(
            Path path,
            FileChannel channel,
            long dataStart,
            Map<String, TensorInfo> tensors,
            Map<String, String> metadata) {
        this.path = path;
        this.channel = channel;
        this.dataStart = dataStart;
        this.tensors = tensors;
        this.metadata = metadata;
    }

    /** Opens and validates a file; close it when the weights are read. */
    public static SafetensorsFile open(Path path) {
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new CheckpointException(path + " does not exist");
        } catch (IOException e) {
            throw new CheckpointException("cannot open " + path + ": " + e.getMessage(), e);
        }
        try {
            return read(path, ch);
        } catch (RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
    }

    private static SafetensorsFile read(Path path, FileChannel ch) {
        try {
            long size = ch.size();
            if (size < 8) {
                throw new CheckpointException(path + ": file has " + size
                        + " bytes, too short for the 8-byte safetensors header length (truncated?)");
            }
            ByteBuffer lenBuf = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readFully(ch, lenBuf, 0);
            long headerLen = lenBuf.getLong(0);
            if (headerLen <= 0 || headerLen > MAX_HEADER_BYTES) {
                throw new CheckpointException(path + ": header length " + Long.toUnsignedString(headerLen)
                        + " is not plausible (expected 1 .. " + MAX_HEADER_BYTES + " bytes); not a safetensors file?");
            }
            if (8 + headerLen > size) {
                throw new CheckpointException(path + ": header length " + headerLen + " runs past the end of the "
                        + size + "-byte file (truncated?)");
            }
            ByteBuffer header = ByteBuffer.allocate((int) headerLen);
            readFully(ch, header, 8);
            String json = new String(header.array(), StandardCharsets.UTF_8);
            long dataStart = 8 + headerLen;
            Map<String, String> metadata = new LinkedHashMap<>();
            Map<String, TensorInfo> tensors = parseHeader(path, json, size - dataStart, metadata);
            return new SafetensorsFile(
                    path, ch, dataStart, Collections.unmodifiableMap(tensors), Collections.unmodifiableMap(metadata));
        } catch (IOException e) {
            throw new CheckpointException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
        long pos = position;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, pos);
            if (n < 0) {
                throw new IOException("unexpected end of file at byte " + pos);
            }
            pos += n;
        }
    }

    static Map<String, TensorInfo> parseHeader(Path path, String json, long dataLength, Map<String, String> metadata) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new CheckpointException(path + ": header is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new CheckpointException(path + ": header is not a JSON object");
        }
        Map<String, TensorInfo> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : root.properties()) {
            String name = e.getKey();
            JsonNode v = e.getValue();
            if (name.equals("__metadata__")) {
                if (!v.isObject()) {
                    throw new CheckpointException(path + ": '__metadata__' must be a map of strings");
                }
                v.properties().forEach(m -> {
                    if (!m.getValue().isTextual()) {
                        throw new CheckpointException(path + ": '__metadata__." + m.getKey() + "' must be a string");
                    }
                    metadata.put(m.getKey(), m.getValue().asText());
                });
                continue;
            }
            tensors.put(name, parseEntry(path, name, v, dataLength));
        }
        checkNoOverlap(path, tensors.values());
        return tensors;
    }

    private static TensorInfo parseEntry(Path path, String name, JsonNode v, long dataLength) {
        String where = path + ": tensor '" + name + "'";
        if (!v.isObject()) {
            throw new CheckpointException(where + " is not an object with dtype, shape and data_offsets");
        }
        JsonNode dt = v.get("dtype");
        if (dt == null || !dt.isTextual()) {
            throw new CheckpointException(where + " has no dtype");
        }
        DType dtype = DType.parse(dt.asText());
        if (dtype == null) {
            throw new CheckpointException(
                    where + " has dtype " + dt.asText() + ", which PolyHE does not read; supported: " + DType.known());
        }
        JsonNode sh = v.get("shape");
        if (sh == null || !sh.isArray()) {
            throw new CheckpointException(where + " has no shape list");
        }
        long[] shape = new long[sh.size()];
        for (int i = 0; i < shape.length; i++) {
            JsonNode d = sh.get(i);
            if (!d.canConvertToLong() || !d.isIntegralNumber() || d.asLong() < 0) {
                throw new CheckpointException(
                        where + " has shape " + sh + "; dimensions must be non-negative integers");
            }
            shape[i] = d.asLong();
        }
        JsonNode off = v.get("data_offsets");
        if (off == null
                || !off.isArray()
                || off.size() != 2
                || !off.get(0).isIntegralNumber()
                || !off.get(1).isIntegralNumber()) {
            throw new CheckpointException(where + " needs data_offsets [begin, end], got " + off);
        }
        long begin = off.get(0).asLong();
        long end = off.get(1).asLong();
        if (begin < 0 || end < begin || end > dataLength) {
            throw new CheckpointException(where + " has data_offsets [" + begin + ", " + end
                    + "] outside the data buffer of " + dataLength + " bytes (truncated or corrupt file)");
        }
        TensorInfo info = new TensorInfo(name, dtype, shape, begin, end);
        long expected;
        try {
            expected = Math.multiplyExact(info.elements(), (long) dtype.bytes());
        } catch (ArithmeticException e) {
            throw new CheckpointException(where + " has an impossibly large shape " + info.shapeString());
        }
        if (end - begin != expected) {
            throw new CheckpointException(where + " (" + dtype + info.shapeString() + ") needs " + expected
                    + " bytes but data_offsets [" + begin + ", " + end + "] span " + (end - begin));
        }
        return info;
    }

    private static void checkNoOverlap(Path path, java.util.Collection<TensorInfo> infos) {
        List<TensorInfo> sorted = new ArrayList<>(infos);
        sorted.removeIf(t -> t.begin() == t.end());
        sorted.sort(Comparator.comparingLong(TensorInfo::begin));
        for (int i = 1; i < sorted.size(); i++) {
            TensorInfo prev = sorted.get(i - 1);
            TensorInfo cur = sorted.get(i);
            if (cur.begin() < prev.end()) {
                throw new CheckpointException(path + ": tensors '" + prev.name() + "' [" + prev.begin() + ", "
                        + prev.end() + ") and '" + cur.name() + "' [" + cur.begin() + ", " + cur.end()
                        + ") overlap in the data buffer");
            }
        }
    }

    public Path path() {
        return path;
    }

    /** The header's {@code __metadata__} string map (empty when absent). */
    public Map<String, String> metadata() {
        return metadata;
    }

    public Map<String, TensorInfo> tensors() {
        return tensors;
    }

    @Override
    public Set<String> names() {
        return tensors.keySet();
    }

    @Override
    public String origin() {
        return path.toString();
    }

    @Override
    public TensorInfo info(String name) {
        TensorInfo t = tensors.get(name);
        if (t == null) {
            throw new CheckpointException(path + ": tensor '" + name + "' is missing");
        }
        return t;
    }

    private ByteBuffer map(TensorInfo t) {
        long len = t.end() - t.begin();
        if (len > Integer.MAX_VALUE) {
            throw new CheckpointException(
                    path + ": tensor '" + t.name() + "' has " + len + " bytes, more than one Java array can hold");
        }
        try {
            MappedByteBuffer m = channel.map(FileChannel.MapMode.READ_ONLY, dataStart + t.begin(), len);
            return m.order(ByteOrder.LITTLE_ENDIAN);
        } catch (IOException e) {
            throw new CheckpointException("cannot map tensor '" + t.name() + "' of " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public double[] doubles(String name) {
        TensorInfo t = info(name);
        if (!t.dtype().isFloat()) {
            throw new CheckpointException(path + ": tensor '" + name + "' has dtype " + t.dtype()
                    + ", expected a float dtype (F32, F16, BF16 or F64)");
        }
        ByteBuffer b = map(t);
        double[] out = new double[(int) t.elements()];
        for (int i = 0; i < out.length; i++) {
            out[i] = t.dtype().read(b, i);
        }
        return out;
    }

    @Override
    public long[] longs(String name) {
        TensorInfo t = info(name);
        if (t.dtype() != DType.I64) {
            throw new CheckpointException(path + ": tensor '" + name + "' has dtype " + t.dtype() + ", expected I64");
        }
        ByteBuffer b = map(t);
        long[] out = new long[(int) t.elements()];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.getLong(i * 8);
        }
        return out;
    }

    @Override
    public void close() {
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // read-only channel: nothing was written that could be lost
        }
    }
}
