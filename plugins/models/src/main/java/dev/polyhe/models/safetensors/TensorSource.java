package dev.polyhe.models.safetensors;

import java.util.Set;

/** Named tensors of a checkpoint: one safetensors file or the shards of an index. */
public interface TensorSource extends AutoCloseable {
    Set<String> names();

    /** @throws dev.polyhe.api.model.CheckpointException naming the tensor if it is absent */
    TensorInfo info(String name);

    /** The values of a float tensor (F64, F32, F16, BF16), row-major, widened to double. */
    double[] doubles(String name);

    /** The values of an I64 tensor, row-major. */
    long[] longs(String name);

    /** Where the tensors come from, for messages. */
    String origin();

    @Override
    void close();
}
