package dev.polyhe.core.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.core.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CalibrationTest {
    @TempDir
    Path dir;

    @Test
    void sitesMergeTheirRanges() {
        SiteCalibration a = new SiteCalibration("attention", -1, 2, 4, 0.5, 1.0, 2.0, 4.0, 4, 0.7, 1.5);
        SiteCalibration b = new SiteCalibration("attention", -3, 1, 9, 0.1, 3.0, 0.3, 9.0, 3, null, null);
        SiteCalibration m = a.merge(b);
        assertEquals(new SiteCalibration("attention", -3, 2, 13, 0.1, 3.0, 0.3, 9.0, 4, 0.7, 1.5), m);
    }

    @Test
    void roundTripsThroughJsonAndRejectsUnknownKeys() throws Exception {
        Calibration c = new Calibration(
                "vit", "softmax", 4, 2, Map.of("layers.0.mlp", SiteCalibration.range("gelu", -4, 5, 100)));
        Path f = dir.resolve("cal.json");
        c.write(f);
        assertEquals(c, Calibration.read(f));
        assertTrue(Files.readString(f).contains("\"model_type\" : \"vit\""));
        Files.writeString(f, Files.readString(f).replace("\"samples\"", "\"sample\""));
        assertTrue(assertThrows(ConfigException.class, () -> Calibration.read(f))
                .getMessage()
                .contains("cal.json"));
        assertTrue(assertThrows(ConfigException.class, () -> Calibration.read(dir.resolve("none.json")))
                .getMessage()
                .contains("does not exist"));
    }

    @Test
    void domainsAreWidenedByTheMargin() {
        SiteDomains d = new SiteDomains(0.1);
        Domain real = d.real(-1, 3);
        assertEquals(-1.4, real.lo(), 1e-12);
        assertEquals(3.4, real.hi(), 1e-12);
        Domain positive = d.positive(1, 4);
        assertEquals(1 / 1.1, positive.lo(), 1e-12);
        assertEquals(4.4, positive.hi(), 1e-12);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> d.positive(0, 4))
                .getMessage()
                .contains("reaches 0"));
        // x^4's top widens as the scores' would: 10 % on x is 46 % on x^4; its bottom as any positive domain's
        Domain powers = d.powers(1, 4, 4);
        assertEquals(1 / 1.1, powers.lo(), 1e-12);
        assertEquals(4 * Math.pow(1.1, 4), powers.hi(), 1e-12);
        // a constant input still gets a proper interval
        assertTrue(d.real(2, 2).width() > 0);
    }

    @Test
    void errorStatsCombineByCount() {
        ErrorStats a = ErrorStats.between(Matrix.of(new double[][] {{1, 2}}), Matrix.of(new double[][] {{1, 3}}));
        assertEquals(new ErrorStats(1, 0.5, 2), a);
        ErrorStats b = new ErrorStats(0.2, 0.2, 2);
        ErrorStats c = a.combine(b);
        assertEquals(1, c.max());
        assertEquals(0.35, c.mean(), 1e-15);
        assertEquals(4, c.count());
    }
}
