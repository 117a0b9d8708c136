package dev.polyhe.models;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.model.CheckpointException;
import dev.polyhe.api.model.Model;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.inference.InferenceResult;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.models.SafetensorsWriter.Entry;
import dev.polyhe.models.gptneox.GptNeoXArchitecture;
import dev.polyhe.models.safetensors.SafetensorsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Broken checkpoints: each fails with its own message naming the file, field or tensor and what was expected. */
class CheckpointErrorsTest {
    private static final String QKV = "gpt_neox.layers.0.attention.query_key_value.weight";

    @TempDir
    Path tmp;

    /** A copy of the tiny Pythia with its tensors edited (as F32, packed anew). */
    private Path pythiaWith(Consumer<Map<String, Entry>> edit) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("pythia"));
        Files.copy(Golden.dir("gpt_neox").resolve("config.json"), dir.resolve("config.json"));
        Map<String, Entry> tensors =
                SafetensorsWriter.readAll(Golden.dir("gpt_neox").resolve("model.safetensors"));
        edit.accept(tensors);
        SafetensorsWriter.write(dir.resolve("model.safetensors"), tensors);
        return dir;
    }

    private Path pythiaWithConfig(String from, String to) throws IOException {
        Path dir = Files.createTempDirectory(tmp, "pythia-config");
        Files.copy(Golden.dir("gpt_neox").resolve("model.safetensors"), dir.resolve("model.safetensors"));
        String config = Files.readString(Golden.dir("gpt_neox").resolve("config.json"));
        assertTrue(config.contains(from));
        Files.writeString(dir.resolve("config.json"), config.replace(from, to));
        return dir;
    }

    private static String loadError(Path dir) {
        return assertThrows(CheckpointException.class, () -> new GptNeoXArchitecture().load(dir))
                .getMessage();
    }

    private static String openError(Path file) {
        return assertThrows(
                        CheckpointException.class,
                        () -> SafetensorsFile.open(file).close())
                .getMessage();
    }

    @Test
    void truncatedFile() throws IOException {
        byte[] full = Files.readAllBytes(Golden.dir("gpt_neox").resolve("model.safetensors"));
        Path cut = tmp.resolve("cut.safetensors");
        Files.write(cut, Arrays.copyOf(full, full.length - 1000));
        String msg = openError(cut);
        assertTrue(msg.contains("outside the data buffer") && msg.contains("truncated"), msg);
        assertTrue(
                msg.contains("tensor 'gpt_neox.layers.1.mlp.dense_h_to_4h.weight' has data_offsets [399872, 465408]"),
                "names the cut tensor: " + msg);

        Files.write(cut, Arrays.copyOf(full, 100));
        msg = openError(cut);
        assertTrue(msg.contains("runs past the end of the 100-byte file (truncated?)"), msg);

        Files.write(cut, Arrays.copyOf(full, 5));
        assertTrue(openError(cut).contains("too short for the 8-byte safetensors header length"));
    }

    @Test
    void implausibleHeaderLength() throws IOException {
        Path f = tmp.resolve("junk.safetensors");
        Files.write(
                f,
                ByteBuffer.allocate(16)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(-5)
                        .array());
        assertTrue(openError(f).contains("header length 18446744073709551611 is not plausible"));
    }

    @Test
    void headerThatIsNotJson() {
        Path f = tmp.resolve("bad.safetensors");
        SafetensorsWriter.writeRaw(f, "{\"a\": [1, 2", new byte[0]);
        assertTrue(openError(f).contains("header is not valid JSON"));
    }

    @Test
    void offsetsOutOfRange() {
        Path f = tmp.resolve("range.safetensors");
        SafetensorsWriter.writeRaw(
                f, "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,24]}}", new byte[16]);
        String msg = openError(f);
        assertTrue(msg.contains("tensor 'w' has data_offsets [8, 24] outside the data buffer of 16 bytes"), msg);
        SafetensorsWriter.writeRaw(
                f, "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[12,4]}}", new byte[16]);
        assertTrue(openError(f).contains("data_offsets [12, 4] outside"));
    }

    @Test
    void overlappingTensors() {
        Path f = tmp.resolve("overlap.safetensors");
        SafetensorsWriter.writeRaw(
                f,
                "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
                        + "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}",
                new byte[16]);
        String msg = openError(f);
        assertTrue(msg.contains("tensors 'a' [0, 16) and 'b' [8, 16) overlap"), msg);
    }

    @Test
    void sizeThatDoesNotMatchDtypeAndShape() {
        Path f = tmp.resolve("size.safetensors");
        SafetensorsWriter.writeRaw(
                f, "{\"w\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[0,16]}}", new byte[16]);
        String msg = openError(f);
        assertTrue(msg.contains("tensor 'w' (BF16[2, 3]) needs 12 bytes but data_offsets [0, 16] span 16"), msg);
    }

    @Test
    void unsupportedDtypeInTheHeader() {
        Path f = tmp.resolve("dtype.safetensors");
        SafetensorsWriter.writeRaw(
                f, "{\"w\":{\"dtype\":\"F8_E4M3\",\"shape\":[4],\"data_offsets\":[0,4]}}", new byte[4]);
        assertTrue(openError(f)
                .contains("tensor 'w' has dtype F8_E4M3, which PolyHE does not read; "
                        + "supported: F64, F32, F16, BF16, I64"));
    }

    @Test
    void wrongDtypeForAWeight() throws IOException {
        Path dir = pythiaWith(t -> t.put("gpt_neox.final_layer_norm.bias", Entry.i64(new long[] {64}, new long[64])));
        String msg = loadError(dir);
        assertTrue(
                msg.contains("tensor 'gpt_neox.final_layer_norm.bias'")
                        && msg.contains("has dtype I64; weights must be F32, F16, BF16 or F64"),
                msg);
    }

    @Test
    void wrongShape() throws IOException {
        Path dir = pythiaWith(t -> t.put(QKV, Entry.f32(new long[] {64, 192}, new double[64 * 192])));
        String msg = loadError(dir);
        assertTrue(
                msg.contains("tensor '" + QKV + "'") && msg.contains("has shape [64, 192], expected [192, 64]"), msg);
    }

    @Test
    void missingTensor() throws IOException {
        Path dir = pythiaWith(t -> t.remove("gpt_neox.layers.1.mlp.dense_4h_to_h.bias"));
        String msg = loadError(dir);
        assertTrue(
                msg.contains("tensor 'gpt_neox.layers.1.mlp.dense_4h_to_h.bias' is missing from")
                        && msg.contains("(expected shape [64])"),
                msg);
    }

    @Test
    void unknownModelType() throws IOException {
        Path dir = pythiaWithConfig("\"model_type\": \"gpt_neox\"", "\"model_type\": \"bert\"");
        assertTrue(loadError(dir).contains("model_type 'bert' is not supported by the gpt_neox architecture"));
        try (PolyHe polyhe = PolyHe.builder().build()) {
            String msg = assertThrows(
                            CheckpointException.class, () -> polyhe.inference().load(dir))
                    .getMessage();
            assertTrue(
                    msg.contains("model_type 'bert' is not supported") && msg.contains("known: gpt_neox, roberta, vit"),
                    msg);
        }
    }

    @Test
    void missingConfigField() throws IOException {
        Path dir = pythiaWithConfig("\"num_attention_heads\": 4,", "");
        assertTrue(loadError(dir).contains("missing required field 'num_attention_heads' (model_type gpt_neox)"));
        Path bad = pythiaWithConfig("\"rotary_pct\": 0.25", "\"rotary_pct\": \"a quarter\"");
        assertTrue(loadError(bad).contains("field 'rotary_pct' = \"a quarter\" is not a number"));
    }

    @Test
    void missingFiles() throws IOException {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertTrue(loadError(empty).contains("has no config.json"));
        Files.copy(Golden.dir("gpt_neox").resolve("config.json"), empty.resolve("config.json"));
        assertTrue(loadError(empty).contains("has neither model.safetensors nor model.safetensors.index.json"));
    }

    @Test
    void halfPrecisionWeightsAreWidened() {
        Path f = tmp.resolve("half.safetensors");
        // F16: 1.0 = 0x3C00, -2.5 = 0xC100, 2^-24 (smallest subnormal) = 0x0001; BF16: 1.5 = 0x3FC0, -0.15625 = 0xBE20
        ByteBuffer b = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 0x3C00).putShort((short) 0xC100).putShort((short) 0x0001);
        b.putShort((short) 0x3FC0).putShort((short) 0xBE20);
        SafetensorsWriter.writeRaw(
                f,
                "{\"h\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,6]},"
                        + "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[6,10]}}",
                b.array());
        try (SafetensorsFile s = SafetensorsFile.open(f)) {
            assertArrayEquals(new double[] {1.0, -2.5, Math.pow(2, -24)}, s.doubles("h"), 0);
            assertArrayEquals(new double[] {1.5, -0.15625}, s.doubles("b"), 0);
            assertTrue(assertThrows(CheckpointException.class, () -> s.longs("h"))
                    .getMessage()
                    .contains("has dtype F16, expected I64"));
        }
    }

    @Test
    void shardedCheckpointGivesTheSameModel() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("sharded"));
        Files.copy(Golden.dir("gpt_neox").resolve("config.json"), dir.resolve("config.json"));
        Map<String, Entry> all =
                SafetensorsWriter.readAll(Golden.dir("gpt_neox").resolve("model.safetensors"));
        Map<String, Entry> first = new LinkedHashMap<>();
        Map<String, Entry> second = new LinkedHashMap<>();
        StringBuilder index = new StringBuilder("{\"metadata\":{},\"weight_map\":{");
        int i = 0;
        for (var e : all.entrySet()) {
            boolean one = i++ % 2 == 0;
            (one ? first : second).put(e.getKey(), e.getValue());
            index.append(i > 1 ? "," : "")
                    .append('"')
                    .append(e.getKey())
                    .append("\":\"model-0000")
                    .append(one ? 1 : 2)
                    .append("-of-00002.safetensors\"");
        }
        SafetensorsWriter.write(dir.resolve("model-00001-of-00002.safetensors"), first);
        SafetensorsWriter.write(dir.resolve("model-00002-of-00002.safetensors"), second);
        Files.writeString(
                dir.resolve("model.safetensors.index.json"), index.append("}}").toString());
        try (PolyHe polyhe = PolyHe.builder().build()) {
            InferenceService service = polyhe.inference();
            Model sharded = service.load(dir).model();
            Model single = service.load(Golden.dir("gpt_neox")).model();
            ModelInput in = Golden.inputs("gpt_neox").get(0);
            InferenceResult a = service.run(sharded, in, service.exactNonlinearities());
            InferenceResult b = service.run(single, in, service.exactNonlinearities());
            assertEquals(b.logits(), a.logits());
        }
        // a weight map pointing at a shard that lacks the tensor
        Files.writeString(
                dir.resolve("model.safetensors.index.json"),
                "{\"weight_map\":{\"" + QKV + "\":\"model-00002-of-00002.safetensors\"}}");
        String msg = loadError(dir);
        assertTrue(
                msg.contains("tensor '" + QKV
                                + "' is mapped to model-00002-of-00002.safetensors but that shard does not hold it")
                        || msg.contains("is missing"),
                msg);
    }
}
