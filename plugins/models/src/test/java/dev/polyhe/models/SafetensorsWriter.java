package dev.polyhe.models;

import dev.polyhe.models.safetensors.SafetensorsFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** Writes safetensors files for tests: well-formed ones from tensors, or any header over any bytes. */
final class SafetensorsWriter {
    /** One tensor to write: dtype name, shape and its raw little-endian bytes. */
    record Entry(String dtype, long[] shape, byte[] bytes) {
        static Entry f32(long[] shape, double[] values) {
            ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (double v : values) {
                b.putFloat((float) v);
            }
            return new Entry("F32", shape, b.array());
        }

        static Entry i64(long[] shape, long[] values) {
            ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
            for (long v : values) {
                b.putLong(v);
            }
            return new Entry("I64", shape, b.array());
        }
    }

    private SafetensorsWriter() {}

    /** Every tensor of a file, as F32 entries (I64 stays I64), in file order. */
    static Map<String, Entry> readAll(Path file) {
        Map<String, Entry> out = new LinkedHashMap<>();
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            f.tensors()
                    .forEach((name, info) -> out.put(
                            name,
                            info.dtype().isFloat()
                                    ? Entry.f32(info.shape(), f.doubles(name))
                                    : Entry.i64(info.shape(), f.longs(name))));
        }
        return out;
    }

    /** A valid file: tensors packed in the given order. */
    static void write(Path file, Map<String, Entry> tensors) {
        StringBuilder header = new StringBuilder("{\"__metadata__\":{\"format\":\"pt\"}");
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (Map.Entry<String, Entry> e : tensors.entrySet()) {
            long begin = data.size();
            data.writeBytes(e.getValue().bytes());
            header.append(",\"")
                    .append(e.getKey())
                    .append("\":{\"dtype\":\"")
                    .append(e.getValue().dtype())
                    .append("\",\"shape\":")
                    .append(Arrays.stream(e.getValue().shape())
                            .mapToObj(Long::toString)
                            .collect(Collectors.joining(",", "[", "]")))
                    .append(",\"data_offsets\":[")
                    .append(begin)
                    .append(',')
                    .append(data.size())
                    .append("]}");
        }
        writeRaw(file, header.append('}').toString(), data.toByteArray());
    }

    /** Any header text (padded to 8 bytes) over any data bytes. */
    static void writeRaw(Path file, String header, byte[] data) {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        int padded = (h.length + 7) / 8 * 8;
        ByteBuffer b = ByteBuffer.allocate(8 + padded + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(padded);
        b.put(h);
        for (int i = h.length; i < padded; i++) {
            b.put((byte) ' ');
        }
        b.put(data);
        try {
            Files.write(file, b.array());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
