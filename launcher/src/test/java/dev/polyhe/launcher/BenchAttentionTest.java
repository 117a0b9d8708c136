package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code polyhe bench attention}: the three mechanisms side by side on encrypted scores, with their ratios. */
class BenchAttentionTest {
    @Test
    void printsTimeDepthAndErrorOfEachMechanismAndTheRatios() {
        var r = polyhe("bench", "attention", "--tokens", "4", "--iterations", "6", "--insecure-test");
        assertEquals(0, r.code(), r.err());
        for (String m : List.of("softmax-taylor-goldschmidt", "softmax-square", "power-softmax-length-agnostic")) {
            String row = r.out()
                    .lines()
                    .filter(l -> l.startsWith("4 ") && l.contains(m))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(m + " missing in\n" + r.out()));
            String[] c = row.trim().split("\\s+");
            assertTrue(Double.parseDouble(c[2]) > 0, row);
            assertTrue(Double.parseDouble(c[6]) < 1e-3, "encrypted vs plaintext program: " + row);
        }
        assertTrue(r.out().contains("tokens 4: PowerSoftmax is"), r.out());
        String power = r.out()
                .lines()
                .filter(l -> l.contains("power-softmax-length-agnostic"))
                .findFirst()
                .orElseThrow();
        String square = r.out()
                .lines()
                .filter(l -> l.contains("softmax-square"))
                .findFirst()
                .orElseThrow();
        assertTrue(
                Integer.parseInt(power.trim().split("\\s+")[3])
                        < Integer.parseInt(square.trim().split("\\s+")[3]),
                "PowerSoftmax is shallower than normalize-and-square");
    }

    @Test
    void formatJsonIsValidJsonWithEveryRow() throws Exception {
        var r = polyhe(
                "bench", "attention", "--tokens", "4", "--iterations", "6", "--insecure-test", "--format", "json");
        assertEquals(0, r.code(), r.err());
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertEquals(3, json.get("rows").size(), r.out());
        for (var row : json.get("rows")) {
            assertTrue(row.get("seconds").asDouble() > 0 && row.has("max_error") && row.has("depth"), row.toString());
        }
        assertEquals(6, json.get("iterations").asInt());
        assertTrue(json.get("parameters").has("log_n"), r.out());
    }
}
