package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plugins PolyHE ships, found in the boot layer and selected by config. */
class ShippedPluginsTest {
    @TempDir
    Path dir;

    private Path config(String yaml) throws Exception {
        Path f = dir.resolve("c.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    private static List<String> names(JsonNode array, String kind) {
        List<String> names = new ArrayList<>();
        array.forEach(n -> {
            if (n.get("kind").asText().equals(kind)) {
                names.add(n.get("name").asText());
            }
        });
        return names;
    }

    @Test
    void jsonListingHasTheShippedMechanismsAndApproximators() throws Exception {
        var r = polyhe("plugins", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode array = new ObjectMapper().readTree(r.out());
        for (JsonNode n : array) {
            for (String field : List.of("kind", "name", "module", "version", "origin")) {
                assertTrue(n.hasNonNull(field), field + " missing in " + n);
            }
            assertEquals("boot", n.get("origin").asText());
        }
        List<String> attention = names(array, "attention");
        assertTrue(
                attention.containsAll(List.of(
                        "softmax",
                        "power-softmax",
                        "power-softmax-length-agnostic",
                        "softmax-taylor-goldschmidt",
                        "softmax-square",
                        "scaled-relu")),
                attention.toString());
        List<String> approx = names(array, "approximation");
        assertTrue(
                approx.containsAll(List.of(
                        "goldschmidt-inverse", "goldschmidt-inv-sqrt", "chebyshev", "gelu-sigmoid", "taylor-exp")),
                approx.toString());
    }

    /** ckks-cuda is always listed; where it cannot run, the listing and a command that selects it say why. */
    @Test
    void theGpuBackendIsListedAndSelectingItWhereItCannotRunIsAnInputError() throws Exception {
        var r = polyhe("plugins", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode cuda = null;
        for (JsonNode n : new ObjectMapper().readTree(r.out())) {
            if (n.get("kind").asText().equals("he-backend")
                    && n.get("name").asText().equals("ckks-cuda")) {
                cuda = n;
            }
        }
        assertTrue(cuda != null, r.out());
        assertEquals("dev.polyhe.backend.cuda", cuda.get("module").asText());
        org.junit.jupiter.api.Assumptions.assumeTrue(
                cuda.get("available").asText().equals("false"), "a GPU is here: the refusal below cannot be seen");
        String reason = cuda.get("reason").asText();
        assertTrue(!reason.isBlank(), cuda.toString());
        assertTrue(polyhe("plugins").out().contains("'ckks-cuda' is not available here: " + reason));
        var bench = polyhe("bench", "ckks", "--backend", "ckks-cuda", "--logN", "12", "--insecure-test");
        assertEquals(2, bench.code(), bench.err());
        assertEquals(1, bench.err().strip().lines().count(), "one line, no stack trace: " + bench.err());
        assertTrue(bench.err().contains(reason), bench.err());
    }

    @Test
    void theExampleConfigPrintsTheErrorAndDepthTable() {
        var r = polyhe(
                "run", Path.of("../examples/configs/attention-benchmark.yaml").toString());
        assertEquals(0, r.code(), r.err());
        String powerRow = r.out()
                .lines()
                .filter(l -> l.startsWith("power-softmax "))
                .findFirst()
                .orElseThrow();
        String[] cols = powerRow.trim().split("\\s+");
        assertEquals(3, Integer.parseInt(cols[1]), "x^4 is two squarings, then one product with the exact 1/sum");
        assertTrue(Double.parseDouble(cols[6]) < 1e-12, "exact PowerSoftmax equals the reference: " + powerRow);
        String agnostic = r.out()
                .lines()
                .filter(l -> l.startsWith("power-softmax-length-agnostic "))
                .findFirst()
                .orElseThrow();
        String[] a = agnostic.trim().split("\\s+");
        assertEquals("yes", a[3], "the length-agnostic form is polynomial");
        assertTrue(Double.parseDouble(a[6]) < 1e-2, agnostic);
        String softmax = r.out()
                .lines()
                .filter(l -> l.startsWith("softmax "))
                .findFirst()
                .orElseThrow();
        assertTrue(Double.parseDouble(softmax.trim().split("\\s+")[4]) < 1e-12, softmax);
    }

    @Test
    void anUnknownMechanismListsTheKnownOnes() throws Exception {
        var r = polyhe("run", config("attention:\n  - name: cosine\n").toString());
        assertEquals(2, r.code());
        assertTrue(
                r.err().contains("unknown attention mechanism 'cosine'")
                        && r.err().contains("power-softmax"),
                r.err());
    }

    @Test
    void outOfRangeOptionsAreConfigErrorsNamingTheOption() throws Exception {
        var odd = polyhe(
                "run",
                config("attention:\n  - name: power-softmax\n    options: {p: 3}\n")
                        .toString());
        assertEquals(2, odd.code());
        assertTrue(odd.err().contains("attention[0]") && odd.err().contains("'p'"), odd.err());
        var eps = polyhe(
                "run",
                config("attention:\n  - name: power-softmax\n    options: {epsilon: -0.1}\n")
                        .toString());
        assertEquals(2, eps.code());
        assertTrue(eps.err().contains("'epsilon'"), eps.err());
        var unknown = polyhe(
                "run",
                config("attention:\n  - name: power-softmax\n    options: {q: 1}\n")
                        .toString());
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("unknown option 'q'"), unknown.err());
    }
}
