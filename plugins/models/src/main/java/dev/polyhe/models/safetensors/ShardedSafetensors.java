package dev.polyhe.models.safetensors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.model.CheckpointException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A checkpoint split over several safetensors files by {@code model.safetensors.index.json}
 * ({@code {"weight_map": {tensor: shard file}}}). Every shard is opened and validated up front, and every
 * tensor of the weight map must be in the shard it names.
 */
public final class ShardedSafetensors implements TensorSource {
    private final Path index;
    private final List<SafetensorsFile> shards;
    private final Map<String, SafetensorsFile> byTensor;

    private ShardedSafetensors(Path index, List<SafetensorsFile> shards, Map<String, SafetensorsFile> byTensor) {
        this.index = index;
        this.shards = shards;
        this.byTensor = byTensor;
    }

    public static ShardedSafetensors open(Path indexFile) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readString(indexFile));
        } catch (IOException e) {
            throw new CheckpointException("cannot read " + indexFile + ": " + e.getMessage(), e);
        }
        JsonNode map = root == null ? null : root.get("weight_map");
        if (map == null || !map.isObject() || map.isEmpty()) {
            throw new CheckpointException(indexFile + ": needs a non-empty 'weight_map' {tensor: shard file}");
        }
        Path dir = indexFile.toAbsolutePath().getParent();
        Map<String, SafetensorsFile> files = new LinkedHashMap<>();
        Map<String, SafetensorsFile> byTensor = new LinkedHashMap<>();
        try {
            for (var e : map.properties()) {
                if (!e.getValue().isTextual()) {
                    throw new CheckpointException(
                            indexFile + ": weight_map entry '" + e.getKey() + "' is not a file name");
                }
                String shardName = e.getValue().asText();
                Path shardPath = dir.resolve(shardName).normalize();
                if (!shardPath.startsWith(dir)) {
                    throw new CheckpointException(
                            indexFile + ": shard '" + shardName + "' lies outside the checkpoint folder");
                }
                SafetensorsFile shard = files.get(shardName);
                if (shard == null) {
                    shard = SafetensorsFile.open(shardPath);
                    files.put(shardName, shard);
                }
                if (!shard.names().contains(e.getKey())) {
                    throw new CheckpointException(indexFile + ": tensor '" + e.getKey() + "' is mapped to " + shardName
                            + " but that shard does not hold it");
                }
                byTensor.put(e.getKey(), shard);
            }
        } catch (RuntimeException e) {
            files.values().forEach(SafetensorsFile::close);
            throw e;
        }
        return new ShardedSafetensors(
                indexFile, new ArrayList<>(files.values()), Collections.unmodifiableMap(byTensor));
    }

    @Override
    public Set<String> names() {
        return byTensor.keySet();
    }

    private SafetensorsFile shard(String name) {
        SafetensorsFile f = byTensor.get(name);
        if (f == null) {
            throw new CheckpointException(index + ": tensor '" + name + "' is missing from the weight map");
        }
        return f;
    }

    @Override
    public TensorInfo info(String name) {
        return shard(name).info(name);
    }

    @Override
    public double[] doubles(String name) {
        return shard(name).doubles(name);
    }

    @Override
    public long[] longs(String name) {
        return shard(name).longs(name);
    }

    @Override
    public String origin() {
        return index.toString();
    }

    @Override
    public void close() {
        shards.forEach(SafetensorsFile::close);
    }
}
