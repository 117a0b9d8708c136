package dev.polyhe.models.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.api.model.CheckpointException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Byte-level BPE on a small tokenizer.json written here in the Hugging Face layout: the 256 byte symbols
 * (ids 0..255 in byte order), a few merges, RoBERTa's special tokens and post-processor.
 */
class ByteLevelBpeTokenizerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Merges in rank order; each adds the merged symbol to the vocabulary. */
    private static final List<String> MERGES = List.of(
            "Ġ t", "l l", "e ll", "h ell", "hell o", "h e", "Ġt he", "Ġ w", "o r", "Ġw or", "Ġwor l", "Ġworl d", "1 2");

    @TempDir
    Path dir;

    private final Map<String, Integer> vocab = new LinkedHashMap<>();

    private Path write(boolean roberta, boolean prefixSpace) throws IOException {
        for (int b = 0; b < 256; b++) {
            vocab.put(ByteLevelAlphabet.encode(new byte[] {(byte) b}), b);
        }
        ObjectNode model = JSON.createObjectNode().put("type", "BPE");
        ObjectNode v = model.putObject("vocab");
        ArrayNode merges = model.putArray("merges");
        for (String m : MERGES) {
            merges.add(m);
            vocab.putIfAbsent(m.replace(" ", ""), vocab.size());
        }
        vocab.forEach(v::put);
        ObjectNode root = JSON.createObjectNode();
        ArrayNode added = root.putArray("added_tokens");
        int s = vocab.size();
        for (String special : List.of("<s>", "</s>", "<pad>")) {
            added.addObject().put("id", vocab.size()).put("content", special).put("special", true);
            vocab.put(special, vocab.size());
        }
        root.putObject("normalizer").put("type", "NFC");
        root.putObject("pre_tokenizer")
                .put("type", "ByteLevel")
                .put("add_prefix_space", prefixSpace)
                .put("trim_offsets", true)
                .put("use_regex", true);
        if (roberta) {
            ObjectNode pp = root.putObject("post_processor").put("type", "RobertaProcessing");
            pp.putArray("cls").add("<s>").add(s);
            pp.putArray("sep").add("</s>").add(s + 1);
        } else {
            root.putObject("post_processor").put("type", "ByteLevel");
        }
        root.set("model", model);
        Path f = dir.resolve(ByteLevelBpeTokenizer.FILE);
        JSON.writeValue(f.toFile(), root);
        return f;
    }

    private long id(String symbol) {
        return vocab.get(symbol);
    }

    @Test
    void mergesByRankAndSplitsLikeGpt2() throws IOException {
        ByteLevelBpeTokenizer t0 = ByteLevelBpeTokenizer.load(write(false, false));
        // "hel": "h e" has the lower rank of the two applicable pairs once "l l" cannot apply
        assertArrayEquals(new long[] {id("he"), 'l'}, t0.encode("hel"));
        ByteLevelBpeTokenizer t = t0;
        // "hello the world!! 123": words "hello", " the", " world", "!!", " 123"
        long[] ids = t.encode("hello the world!! 123");
        assertArrayEquals(new long[] {id("hello"), id("Ġthe"), id("Ġworld"), '!', '!', id("Ġ"), id("12"), '3'}, ids);
        assertEquals("hello the world!! 123", t.decode(ids));
    }

    @Test
    void whitespaceRunsKeepTheirLastSpaceForTheNextWord() throws IOException {
        ByteLevelBpeTokenizer t = ByteLevelBpeTokenizer.load(write(false, false));
        // "a   the": "a", "  " (spaces not followed by a non-space... the last one goes with "the"), " the"
        assertArrayEquals(new long[] {'a', id("Ġ"), id("Ġ"), id("Ġthe")}, t.encode("a   the"));
    }

    @Test
    void robertaAddsItsSpecialTokensAndTheOptionalPrefixSpace() throws IOException {
        ByteLevelBpeTokenizer t = ByteLevelBpeTokenizer.load(write(true, true));
        long[] ids = t.encode("the<pad>world");
        assertArrayEquals(new long[] {id("<s>"), id("Ġthe"), id("<pad>"), 'w', id("or"), 'l', 'd', id("</s>")}, ids);
        assertEquals("<s> the<pad>world</s>", t.decode(ids));
    }

    @Test
    void everyByteRoundTrips() throws IOException {
        ByteLevelBpeTokenizer t = ByteLevelBpeTokenizer.load(write(false, false));
        String text = "Grüße, 世界 — tabs\tand\nnewlines é";
        long[] ids = t.encode(text);
        assertEquals(text, t.decode(ids));
        // NFC: a decomposed é (e + combining acute) becomes the composed one, two UTF-8 bytes
        assertArrayEquals(t.encode("\u00e9"), t.encode("e\u0301"));
        assertEquals(2, t.encode("\u00e9").length);
        assertEquals("é".getBytes(StandardCharsets.UTF_8).length, t.encode("é").length);
    }

    @Test
    void findsTheTokenizerOfACheckpointFolderOnlyWhenPresent() throws IOException {
        assertTrue(ByteLevelBpeTokenizer.find(dir).isEmpty());
        write(false, false);
        assertTrue(ByteLevelBpeTokenizer.find(dir).isPresent());
    }

    /**
     * Malformed entries are input errors naming the file and the entry; the first (a merge that is a one-element
     * list) was found by FormatFuzzTest as a NullPointerException.
     */
    @Test
    void malformedEntriesAreCleanErrors() throws IOException {
        String[][] cases = {
            {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [[\"a\"]]}}", "merge 0"},
            {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [{}]}}", "merge 0"},
            {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": -3}}}", "model.vocab.a = -3"},
            {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": \"x\"}}}", "model.vocab.a"},
            {"{\"model\": {\"type\": \"BPE\", \"vocab\": {}}, \"added_tokens\": [{\"id\": 1}]}", "no text"},
            {"[1, 2]", "expected a JSON object"},
            {
                "{\"model\": {\"type\": \"BPE\", \"vocab\": {}}, \"pre_tokenizer\": {\"type\": \"ByteLevel\"}, "
                        + "\"post_processor\": {\"type\": \"RobertaProcessing\", \"cls\": [\"<s>\"]}}",
                "post_processor cls"
            },
        };
        for (String[] c : cases) {
            Path f = Files.writeString(dir.resolve("bad.json"), c[0]);
            String message = assertThrows(CheckpointException.class, () -> ByteLevelBpeTokenizer.load(f))
                    .getMessage();
            assertTrue(message.contains("bad.json") && message.contains(c[1]), c[0] + " -> " + message);
        }
    }

    @Test
    void refusesNonBpeTokenizers() throws IOException {
        Path f = dir.resolve("wordpiece.json");
        Files.writeString(f, "{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}}");
        assertTrue(assertThrows(CheckpointException.class, () -> ByteLevelBpeTokenizer.load(f))
                .getMessage()
                .contains("only byte-level BPE tokenizers are supported"));
    }
}
