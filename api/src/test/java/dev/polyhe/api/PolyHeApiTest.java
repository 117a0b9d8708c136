package dev.polyhe.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PolyHeApiTest {
    @Test
    void constantMatchesTheBuildVersion() throws Exception {
        Properties p = new Properties();
        try (InputStream in = PolyHeApi.class.getResourceAsStream("api-version.properties")) {
            p.load(in);
        }
        assertEquals(
                p.getProperty("version"),
                PolyHeApi.VERSION,
                "PolyHeApi.VERSION must equal polyhe.api.version in the root pom");
    }

    @Test
    void majorVersionDecidesCompatibility() {
        assertEquals(1, PolyHeApi.major("1.7"));
        assertTrue(PolyHeApi.compatible(PolyHeApi.major(PolyHeApi.VERSION) + ".9"));
        assertFalse(PolyHeApi.compatible((PolyHeApi.major(PolyHeApi.VERSION) + 1) + ".0"));
        assertThrows(IllegalArgumentException.class, () -> PolyHeApi.major("x.1"));
    }

    @Test
    void optionsNameKeyValueAndAllowedRange() {
        Options o = new Options("attention 'power-softmax'", Map.of("p", "3x", "q", "1"));
        var e = assertThrows(Options.InvalidOptionException.class, () -> o.getInt("p", 4));
        assertTrue(e.getMessage().contains("'p'") && e.getMessage().contains("3x"), e.getMessage());
        var unknown = assertThrows(Options.InvalidOptionException.class, () -> o.requireOnly(Set.of("p")));
        assertTrue(unknown.getMessage().contains("unknown option 'q'"), unknown.getMessage());
        var range = assertThrows(
                Options.InvalidOptionException.class,
                () -> new Options("x", Map.of("epsilon", "-1")).getDouble("epsilon", 1e-3, 0, 1));
        assertTrue(range.getMessage().contains("0.0 .. 1.0"), range.getMessage());
    }
}
