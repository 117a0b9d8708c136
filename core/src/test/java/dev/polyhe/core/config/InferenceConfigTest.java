package dev.polyhe.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.core.config.ConfigLoader.Format;
import org.junit.jupiter.api.Test;

class InferenceConfigTest {
    private static PolyHeConfig yaml(String text) {
        return ConfigLoader.parse(text, Format.YAML, "test.yaml", PolyHeConfig.class);
    }

    @Test
    void theInferenceSectionMapsOntoItsRecordWithDefaults() {
        PolyHeConfig c = yaml("""
                inference:
                  engine: poly
                  attention: {name: power-softmax, options: {p: 4, epsilon: 0.001}}
                  margin: 0.25
                  gelu: {name: gelu-sigmoid, options: {degree: 15}}
                """);
        InferenceConfig i = c.inference();
        assertEquals(InferenceConfig.Engine.POLY, i.engine());
        assertEquals("power-softmax", i.attention().name());
        assertEquals(0.25, i.margin());
        assertEquals("15", i.gelu().toOptions("approximation").values().get("degree"));
        assertEquals(InferenceConfig.DEFAULT_INV_SQRT, i.invSqrt(), "unset keys take their defaults");
        assertNull(i.calibration());
    }

    @Test
    void withoutTheSectionTheDefaultsApply() {
        InferenceConfig i = PolyHeConfig.defaults().inference();
        assertEquals(InferenceConfig.Engine.PLAIN, i.engine());
        assertEquals(0.1, i.margin());
        assertEquals("goldschmidt", i.attentionDivision().get("division"));
    }

    @Test
    void unknownKeysAndBadValuesAreErrorsNamingTheKey() {
        String msg = assertThrows(ConfigException.class, () -> yaml("inference: {engines: poly}\n"))
                .getMessage();
        assertTrue(msg.contains("unknown key 'inference.engines'") && msg.contains("engine"), msg);
        msg = assertThrows(ConfigException.class, () -> yaml("inference: {engine: gpu}\n"))
                .getMessage();
        assertTrue(msg.contains("'inference.engine'") && msg.contains("plain, poly"), msg);
        msg = assertThrows(ConfigException.class, () -> yaml("inference: {margin: -1}\n"))
                .getMessage();
        assertTrue(msg.contains("'margin' = -1.0 is not allowed; expected 0 .. 10"), msg);
    }
}
