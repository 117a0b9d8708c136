package dev.polyhe.models.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.model.CheckpointException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The byte-level BPE tokenizer of GPT-2, GPT-NeoX (Pythia) and RoBERTa, read from a Hugging Face
 * {@code tokenizer.json}: optional NFC normalizer, added (special) tokens matched verbatim first, the GPT-2
 * pre-tokenizer regex, bytes mapped to printable characters, BPE merges by rank, and the post-processor's
 * special tokens ({@code RobertaProcessing}'s {@code <s> … </s>}, or a {@code TemplateProcessing} template).
 *
 * <p>Written here because the maintained Java binding (DJL) ships a native library; this one is plain Java and
 * works on the module path offline.
 */
public final class ByteLevelBpeTokenizer {
    public static final String FILE = "tokenizer.json";

    /** GPT-2's pre-tokenizer: contractions, letters, numbers, other symbols, whitespace runs. */
    private static final Pattern GPT2_SPLIT = Pattern.compile(
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
            Pattern.UNICODE_CHARACTER_CLASS);

    private final Map<String, Integer> vocab;
    private final Map<Integer, String> idToToken;
    private final Map<String, Integer> mergeRanks;
    private final Map<String, Integer> addedTokens;
    private final Pattern addedTokenPattern;
    private final boolean nfc;
    private final boolean addPrefixSpace;
    private final long[] prefixIds;
    private final long[] suffixIds;
    private final Map<String, long[]> cache = new ConcurrentHashMap<>();

    private ByteLevelBpeTokenizer(
            Map<String, Integer> vocab,
            Map<String, Integer> mergeRanks,
            Map<String, Integer> addedTokens,
            boolean nfc,
            boolean addPrefixSpace,
            long[] prefixIds,
            long[] suffixIds) {
        this.vocab = vocab;
        this.mergeRanks = mergeRanks;
        this.addedTokens = addedTokens;
        this.nfc = nfc;
        this.addPrefixSpace = addPrefixSpace;
        this.prefixIds = prefixIds;
        this.suffixIds = suffixIds;
        this.idToToken = new HashMap<>();
        vocab.forEach((t, id) -> idToToken.put(id, t));
        addedTokens.forEach((t, id) -> idToToken.put(id, t));
        this.addedTokenPattern = addedTokens.isEmpty()
                ? null
                : Pattern.compile(addedTokens.keySet().stream()
                        .sorted((a, b) -> b.length() - a.length())
                        .map(Pattern::quote)
                        .reduce((a, b) -> a + "|" + b)
                        .orElseThrow());
    }

    /** The tokenizer of a checkpoint folder, if it has a {@code tokenizer.json}. */
    public static Optional<ByteLevelBpeTokenizer> find(Path checkpointDir) {
        Path f = checkpointDir.resolve(FILE);
        return Files.isRegularFile(f) ? Optional.of(load(f)) : Optional.empty();
    }

    /** The largest tokenizer.json read (Hugging Face's are a few MB); a larger file is refused before it is read. */
    static final long MAX_BYTES = 64L * 1024 * 1024;

    public static ByteLevelBpeTokenizer load(Path file) {
        JsonNode root;
        try {
            long size = Files.size(file);
            if (size > MAX_BYTES) {
                throw new CheckpointException(
                        file + ": " + size + " bytes; a tokenizer.json holds at most " + MAX_BYTES);
            }
            root = new ObjectMapper().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new CheckpointException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new CheckpointException(file + ": expected a JSON object");
        }
        JsonNode model = root.path("model");
        if (!"BPE".equals(model.path("type").asText("BPE"))
                || !model.path("vocab").isObject()) {
            throw new CheckpointException(
                    file + ": only byte-level BPE tokenizers are supported (model.type BPE with a vocab)");
        }
        Map<String, Integer> vocab = new HashMap<>();
        model.get("vocab")
                .properties()
                .forEach(e -> vocab.put(e.getKey(), id(file, "model.vocab." + e.getKey(), e.getValue())));
        Map<String, Integer> ranks = new HashMap<>();
        JsonNode merges = model.path("merges");
        if (!merges.isMissingNode() && !merges.isArray()) {
            throw new CheckpointException(file + ": model.merges is not a list");
        }
        for (int i = 0; i < merges.size(); i++) {
            JsonNode m = merges.get(i);
            boolean pairOfStrings = m.isArray()
                    && m.size() == 2
                    && m.get(0).isTextual()
                    && m.get(1).isTextual();
            if (!pairOfStrings && !m.isTextual()) {
                throw new CheckpointException(
                        file + ": merge " + i + " is " + m + "; expected \"a b\" or [\"a\", \"b\"]");
            }
            String pair = pairOfStrings ? m.get(0).asText() + " " + m.get(1).asText() : m.asText();
            if (pair.split(" ").length != 2) {
                throw new CheckpointException(file + ": merge " + i + " ('" + pair + "') is not two symbols");
            }
            ranks.putIfAbsent(pair, i);
        }
        Map<String, Integer> added = new HashMap<>();
        for (JsonNode t : root.path("added_tokens")) {
            if (!t.path("content").isTextual()) {
                throw new CheckpointException(file + ": an added token has no text content: " + t);
            }
            added.put(
                    t.path("content").asText(),
                    id(file, "added_tokens '" + t.path("content").asText() + "' id", t.path("id")));
        }
        boolean nfc = hasNormalizer(root.path("normalizer"), "NFC");
        JsonNode byteLevel = findByType(root.path("pre_tokenizer"), "ByteLevel");
        if (byteLevel == null) {
            throw new CheckpointException(file + ": no ByteLevel pre_tokenizer; only byte-level BPE is supported");
        }
        boolean prefixSpace = byteLevel.path("add_prefix_space").asBoolean(false);
        List<Long> pre = new ArrayList<>();
        List<Long> post = new ArrayList<>();
        readPostProcessor(file, root.path("post_processor"), pre, post);
        return new ByteLevelBpeTokenizer(
                vocab,
                ranks,
                added,
                nfc,
                prefixSpace,
                pre.stream().mapToLong(Long::longValue).toArray(),
                post.stream().mapToLong(Long::longValue).toArray());
    }

    /** A token id: a non-negative integer. */
    private static int id(Path file, String what, JsonNode n) {
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.intValue() < 0) {
            throw new CheckpointException(
                    file + ": " + what + " = " + n + " is not a token id (a non-negative integer)");
        }
        return n.intValue();
    }

    private static boolean hasNormalizer(JsonNode n, String type) {
        return findByType(n, type) != null;
    }

    /** The node of a given type, looking inside {@code Sequence} wrappers. */
    private static JsonNode findByType(JsonNode n, String type) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return null;
        }
        if (type.equals(n.path("type").asText())) {
            return n;
        }
        for (String key : List.of("pretokenizers", "normalizers", "processors")) {
            for (JsonNode child : n.path(key)) {
                JsonNode f = findByType(child, type);
                if (f != null) {
                    return f;
                }
            }
        }
        return null;
    }

    private static void readPostProcessor(Path file, JsonNode pp, List<Long> pre, List<Long> post) {
        JsonNode roberta = findByType(pp, "RobertaProcessing");
        if (roberta == null) {
            roberta = findByType(pp, "BertProcessing");
        }
        if (roberta != null) {
            // "cls": ["<s>", 0], "sep": ["</s>", 2]
            pre.add((long) id(file, "post_processor cls", roberta.path("cls").path(1)));
            post.add((long) id(file, "post_processor sep", roberta.path("sep").path(1)));
            return;
        }
        JsonNode template = findByType(pp, "TemplateProcessing");
        if (template != null) {
            List<Long> target = pre;
            for (JsonNode piece : template.path("single")) {
                if (piece.has("Sequence")) {
                    target = post;
                } else if (piece.has("SpecialToken")) {
                    String id = piece.path("SpecialToken").path("id").asText();
                    for (JsonNode i : template.path("special_tokens").path(id).path("ids")) {
                        target.add((long) id(file, "post_processor special token '" + id + "'", i));
                    }
                }
            }
        }
    }

    /** Token ids of {@code text}, with the post-processor's special tokens. */
    public long[] encode(String text) {
        String s = nfc ? Normalizer.normalize(text, Normalizer.Form.NFC) : text;
        List<Long> ids = new ArrayList<>();
        for (long id : prefixIds) {
            ids.add(id);
        }
        int pos = 0;
        if (addedTokenPattern != null) {
            Matcher m = addedTokenPattern.matcher(s);
            while (m.find()) {
                encodeOrdinary(s.substring(pos, m.start()), pos == 0, ids);
                ids.add((long) addedTokens.get(m.group()));
                pos = m.end();
            }
        }
        encodeOrdinary(s.substring(pos), pos == 0, ids);
        for (long id : suffixIds) {
            ids.add(id);
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    private void encodeOrdinary(String text, boolean atStart, List<Long> out) {
        if (text.isEmpty()) {
            return;
        }
        String s = addPrefixSpace && atStart && !text.startsWith(" ") ? " " + text : text;
        Matcher m = GPT2_SPLIT.matcher(s);
        while (m.find()) {
            String word = ByteLevelAlphabet.encode(m.group().getBytes(StandardCharsets.UTF_8));
            for (long id : cache.computeIfAbsent(word, this::bpe)) {
                out.add(id);
            }
        }
    }

    /** Merges the adjacent pair of lowest rank until none is mergeable, then maps symbols to ids. */
    private long[] bpe(String word) {
        List<String> symbols = new ArrayList<>();
        word.codePoints().forEach(cp -> symbols.add(new String(Character.toChars(cp))));
        while (symbols.size() > 1) {
            int best = -1;
            int bestRank = Integer.MAX_VALUE;
            for (int i = 0; i + 1 < symbols.size(); i++) {
                Integer r = mergeRanks.get(symbols.get(i) + " " + symbols.get(i + 1));
                if (r != null && r < bestRank) {
                    bestRank = r;
                    best = i;
                }
            }
            if (best < 0) {
                break;
            }
            // merge every occurrence of the winning pair, left to right, as the reference does
            String a = symbols.get(best);
            String b = symbols.get(best + 1);
            List<String> merged = new ArrayList<>(symbols.size());
            for (int i = 0; i < symbols.size(); i++) {
                if (i + 1 < symbols.size()
                        && symbols.get(i).equals(a)
                        && symbols.get(i + 1).equals(b)) {
                    merged.add(a + b);
                    i++;
                } else {
                    merged.add(symbols.get(i));
                }
            }
            symbols.clear();
            symbols.addAll(merged);
        }
        long[] ids = new long[symbols.size()];
        for (int i = 0; i < ids.length; i++) {
            Integer id = vocab.get(symbols.get(i));
            if (id == null) {
                throw new IllegalArgumentException("symbol '" + symbols.get(i) + "' of word '" + word
                        + "' is not in the vocabulary (incomplete byte-level vocab?)");
            }
            ids[i] = id;
        }
        return ids;
    }

    /** The text of {@code ids} (special tokens included verbatim). */
    public String decode(long[] ids) {
        StringBuilder sb = new StringBuilder();
        for (long id : ids) {
            String t = idToToken.get((int) id);
            if (t == null) {
                throw new IllegalArgumentException("token id " + id + " is not in the vocabulary");
            }
            sb.append(addedTokens.containsKey(t) ? ByteLevelAlphabet.encode(t.getBytes(StandardCharsets.UTF_8)) : t);
        }
        return new String(ByteLevelAlphabet.decode(sb.toString()), StandardCharsets.UTF_8);
    }

    public int vocabSize() {
        return idToToken.size();
    }
}
