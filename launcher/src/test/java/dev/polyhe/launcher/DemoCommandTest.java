package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's main command, on the tiny Pythia the repository ships. */
class DemoCommandTest {
    @Test
    void theDemoRunsThePolynomialModelAndEncryptedAttention() {
        var r = polyhe("demo", "--model", "../models/tiny-pythia");
        assertEquals(0, r.code(), r.err());
        Matcher same = Pattern.compile("same next-token prediction at (\\d+) of (\\d+) positions")
                .matcher(r.out());
        assertTrue(same.find(), r.out());
        assertEquals(
                same.group(2), same.group(1), "the polynomial model predicts the exact model's tokens: " + r.out());
        Matcher enc = Pattern.compile(
                        "max \\|encrypted - plaintext\\| ([0-9.eE+-]+); rows sum to 1 within ([0-9.eE+-]+)")
                .matcher(r.out());
        assertTrue(enc.find(), r.out());
        assertTrue(Double.parseDouble(enc.group(1)) < 1e-5, r.out());
        assertTrue(Double.parseDouble(enc.group(2)) < 1e-3, r.out());
    }

    @Test
    void aMissingModelFolderIsAUsageError() {
        var r = polyhe("demo", "--model", "no/such/folder");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("no/such/folder"), r.err());
    }
}
