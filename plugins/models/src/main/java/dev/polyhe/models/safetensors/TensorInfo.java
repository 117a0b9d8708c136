package dev.polyhe.models.safetensors;

import java.util.Arrays;

/**
 * One entry of a safetensors header: where a tensor's bytes lie in the data buffer and how to read them.
 *
 * @param begin first byte, counted from the start of the data buffer
 * @param end one past the last byte
 */
public record TensorInfo(String name, DType dtype, long[] shape, long begin, long end) {
    public long elements() {
        long n = 1;
        for (long s : shape) {
            n = Math.multiplyExact(n, s);
        }
        return n;
    }

    public String shapeString() {
        return Arrays.toString(shape);
    }

    /** Whether the shape is exactly {@code expected}. */
    public boolean hasShape(long... expected) {
        return Arrays.equals(shape, expected);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorInfo t
                && t.name.equals(name)
                && t.dtype == dtype
                && Arrays.equals(t.shape, shape)
                && t.begin == begin
                && t.end == end;
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return name + " " + dtype + shapeString();
    }
}
