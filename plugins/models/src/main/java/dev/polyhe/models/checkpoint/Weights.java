package dev.polyhe.models.checkpoint;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.model.CheckpointException;
import dev.polyhe.models.safetensors.TensorInfo;
import dev.polyhe.models.safetensors.TensorSource;
import java.util.Arrays;

/**
 * The weights an architecture asks for, by Hugging Face tensor name and exact shape. Every request checks
 * presence, dtype and shape and fails naming the tensor, the shape found and the shape expected, so a model
 * that loads has every tensor it will use.
 */
public final class Weights {
    private final TensorSource source;

    public Weights(TensorSource source) {
        this.source = source;
    }

    public boolean has(String name) {
        return source.names().contains(name);
    }

    /** {@code prefix + "."} when the checkpoint stores the base model under {@code prefix}, else "". */
    public String basePrefix(String prefix, String probe) {
        return has(prefix + "." + probe) ? prefix + "." : "";
    }

    private TensorInfo require(String name, long... shape) {
        if (!has(name)) {
            throw new CheckpointException("tensor '" + name + "' is missing from " + source.origin()
                    + " (expected shape " + Arrays.toString(shape) + ")");
        }
        TensorInfo info = source.info(name);
        if (!info.dtype().isFloat()) {
            throw new CheckpointException("tensor '" + name + "' in " + source.origin() + " has dtype " + info.dtype()
                    + "; weights must be F32, F16, BF16 or F64");
        }
        if (!info.hasShape(shape)) {
            throw new CheckpointException("tensor '" + name + "' in " + source.origin() + " has shape "
                    + info.shapeString() + ", expected " + Arrays.toString(shape));
        }
        return info;
    }

    /** A [rows, cols] tensor as a matrix. */
    public Matrix matrix(String name, int rows, int cols) {
        require(name, rows, cols);
        return new Matrix(rows, cols, source.doubles(name));
    }

    /** A [n] tensor. */
    public double[] vector(String name, int n) {
        require(name, n);
        return source.doubles(name);
    }

    /** A tensor of any exact shape, flattened row-major. */
    public double[] tensor(String name, long... shape) {
        require(name, shape);
        return source.doubles(name);
    }
}
