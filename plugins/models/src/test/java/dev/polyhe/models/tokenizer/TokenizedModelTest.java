package dev.polyhe.models.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.model.CheckpointException;
import dev.polyhe.api.model.Model;
import dev.polyhe.models.gptneox.GptNeoXArchitecture;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A checkpoint folder with a tokenizer.json tokenizes text; one without refuses text, naming what to give. */
class TokenizedModelTest {
    @TempDir
    Path dir;

    private Path checkpoint() throws Exception {
        Path golden = Path.of(TokenizedModelTest.class
                        .getResource("/golden/gpt_neox/config.json")
                        .toURI())
                .getParent();
        Files.copy(golden.resolve("config.json"), dir.resolve("config.json"));
        Files.copy(golden.resolve("model.safetensors"), dir.resolve("model.safetensors"));
        return dir;
    }

    @Test
    void aFolderWithATokenizerTokenizesText() throws Exception {
        Path folder = checkpoint();
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        ObjectNode model = root.putObject("model").put("type", "BPE");
        ObjectNode vocab = model.putObject("vocab");
        for (int b = 0; b < 256; b++) {
            vocab.put(ByteLevelAlphabet.encode(new byte[] {(byte) b}), b);
        }
        model.putArray("merges").add("h i");
        vocab.put("hi", 256);
        root.putObject("pre_tokenizer").put("type", "ByteLevel").put("add_prefix_space", false);
        json.writeValue(folder.resolve(ByteLevelBpeTokenizer.FILE).toFile(), root);

        Model m = new GptNeoXArchitecture().load(folder);
        ByteLevelBpeTokenizer t = ByteLevelBpeTokenizer.load(folder.resolve(ByteLevelBpeTokenizer.FILE));
        assertArrayEquals(t.encode("hi there"), m.tokenize("hi there"));
        assertArrayEquals(new long[] {256}, m.tokenize("hi"));
    }

    @Test
    void aFolderWithoutATokenizerAsksForTokenIds() throws Exception {
        Model m = new GptNeoXArchitecture().load(checkpoint());
        var e = assertThrows(CheckpointException.class, () -> m.tokenize("hello"));
        assertTrue(
                e.getMessage().contains("no tokenizer.json") && e.getMessage().contains("input_ids"), e.getMessage());
    }
}
