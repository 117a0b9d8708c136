package dev.polyhe.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.core.config.ConfigLoader.Format;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    private static PolyHeConfig yaml(String text) {
        return ConfigLoader.parse(text, Format.YAML, "test.yaml", PolyHeConfig.class);
    }

    private static String error(String text) {
        return assertThrows(ConfigException.class, () -> yaml(text)).getMessage();
    }

    @Test
    void yamlMapsOntoTypedRecords() {
        PolyHeConfig c = yaml("""
                workload: attention-benchmark
                attention:
                  - name: power-softmax
                    options: {p: 6, epsilon: 0.01}
                  - name: softmax
                benchmark:
                  length: 64
                  rows: 4
                  reference-p: 6
                """);
        assertEquals(2, c.attention().size());
        assertEquals("6", c.attention().get(0).toOptions("attention").values().get("p"));
        assertEquals(64, c.benchmark().length());
        assertEquals(6, c.benchmark().referenceP());
        assertEquals(42L, c.benchmark().seed(), "unset keys take their defaults");
    }

    @Test
    void jsonWorksToo(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("c.json");
        Files.writeString(f, "{\"attention\": [{\"name\": \"softmax\"}], \"benchmark\": {\"length\": 8}}");
        assertEquals(8, ConfigLoader.load(f).benchmark().length());
    }

    @Test
    void unknownKeyIsAnErrorNamingThePathAndTheAllowedKeys() {
        String m = error("benchmark:\n  lenght: 8\n");
        assertTrue(m.contains("unknown key 'benchmark.lenght'"), m);
        assertTrue(m.contains("length") && m.contains("rows"), m);
        String nested = error("attention:\n  - name: softmax\n    optoins: {}\n");
        assertTrue(nested.contains("'attention[0].optoins'") && nested.contains("options"), nested);
    }

    @Test
    void wrongTypeNamesKeyValueAndExpectedType() {
        String m = error("benchmark:\n  length: abc\n");
        assertTrue(m.contains("benchmark.length") && m.contains("abc") && m.contains("integer"), m);
        String f = error("benchmark:\n  length: 8.5\n");
        assertTrue(f.contains("benchmark.length"), f);
        String w = error("workload: train\n");
        assertTrue(w.contains("workload") && w.contains("attention-benchmark"), w);
    }

    @Test
    void outOfRangeValuesNameTheAllowedRange() {
        String m = error("benchmark:\n  length: 0\n");
        assertTrue(m.contains("'length' = 0") && m.contains("1 .. 65536"), m);
        String p = error("benchmark:\n  reference-p: 3\n");
        assertTrue(p.contains("reference-p") && p.contains("even"), p);
        String d = error("benchmark:\n  distribution: cauchy\n");
        assertTrue(d.contains("normal, uniform"), d);
    }

    @Test
    void malformedSyntaxAndMissingFilesAreClear(@TempDir Path dir) {
        String m = error("attention: [\n");
        assertTrue(m.startsWith("test.yaml: not valid YAML"), m);
        String missing = assertThrows(ConfigException.class, () -> ConfigLoader.load(dir.resolve("nope.yaml")))
                .getMessage();
        assertTrue(missing.contains("does not exist"), missing);
        String dup = error("benchmark:\n  length: 8\n  length: 9\n");
        assertTrue(dup.toLowerCase().contains("duplicate"), dup);
    }

    @Test
    void optionValuesMustBeScalars() {
        String m = error("attention:\n  - name: x\n    options: {p: [1, 2]}\n");
        assertTrue(m.contains("'p' must be a scalar"), m);
    }
}
