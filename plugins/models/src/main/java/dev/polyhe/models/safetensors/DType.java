package dev.polyhe.models.safetensors;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.stream.Collectors;

/** The safetensors element types PolyHE reads, with their size in bytes and their decoding to double. */
public enum DType {
    F64(8),
    F32(4),
    F16(2),
    BF16(2),
    I64(8);

    private final int bytes;

    DType(int bytes) {
        this.bytes = bytes;
    }

    public int bytes() {
        return bytes;
    }

    public boolean isFloat() {
        return this != I64;
    }

    /** The dtype spelled as in a safetensors header, or null when PolyHE does not read it. */
    static DType parse(String name) {
        for (DType d : values()) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        return null;
    }

    static String known() {
        return Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", "));
    }

    /** Reads element {@code i} of a little-endian buffer as a double. */
    double read(ByteBuffer b, int i) {
        return switch (this) {
            case F64 -> b.getDouble(i * 8);
            case F32 -> b.getFloat(i * 4);
            case F16 -> halfToFloat(b.getShort(i * 2));
            case BF16 -> Float.intBitsToFloat((b.getShort(i * 2) & 0xffff) << 16);
            case I64 -> b.getLong(i * 8);
        };
    }

    /**
     * IEEE 754 binary16 to float, including subnormals, infinities and NaN (Float.float16ToFloat needs Java 20;
     * the project targets 17).
     */
    static float halfToFloat(short h) {
        int bits = h & 0xffff;
        int sign = (bits & 0x8000) << 16;
        int exp = (bits >>> 10) & 0x1f;
        int mant = bits & 0x3ff;
        if (exp == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
        }
        if (exp == 0) {
            if (mant == 0) {
                return Float.intBitsToFloat(sign);
            }
            // subnormal: value = mant * 2^-24
            float v = mant * 0x1p-24f;
            return sign == 0 ? v : -v;
        }
        return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
    }
}
