package dev.polyhe.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.InsecureParametersException;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.PolyHe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** With no chain option the ckks engine runs on a 128-bit preset that can run the circuit, and says why. */
class ChainOptionsTest {
    private static PolyHe polyhe;
    private static HeBackend cpu;

    @BeforeAll
    static void open() {
        polyhe = PolyHe.builder().build();
        cpu = polyhe.plugins().backend("ckks-cpu");
    }

    @AfterAll
    static void close() {
        polyhe.close();
    }

    @Test
    void noOptionChoosesTheBackendsSecurePresetAndSaysWhy() {
        ChainOptions none = new ChainOptions();
        var shallow = none.resolve(cpu, 10, 6, true);
        assertEquals(SecurityLevel.HES_128, shallow.security());
        assertEquals(14, shallow.logN(), "N14-128 is the smallest 128-bit ring with 6 levels");
        assertTrue(
                none.defaultChoice.contains("N14-128") && none.defaultChoice.contains("6 levels"), none.defaultChoice);

        ChainOptions deep = new ChainOptions();
        var boot = deep.resolve(cpu, 10, 109, true);
        assertEquals(cpu.preset("N16-boot-128"), boot);
        assertTrue(
                deep.defaultChoice.contains("bootstraps") && deep.defaultChoice.contains("109 levels"),
                deep.defaultChoice);
    }

    @Test
    void anyChainOptionTurnsTheDefaultOff() {
        ChainOptions preset = new ChainOptions();
        preset.preset = "N15-128";
        assertEquals(15, preset.resolve(cpu, 10, 3, true).logN());
        assertNull(preset.defaultChoice);

        ChainOptions built = new ChainOptions();
        built.logN = 12;
        built.levels = 3;
        built.insecure = true;
        var p = built.resolve(cpu, 10, 109, true);
        assertEquals(SecurityLevel.INSECURE_TEST, p.security());
        assertEquals(3, p.maxLevel());
        assertNull(built.defaultChoice);
    }

    @Test
    void aCircuitNoSecurePresetHoldsStillNeedsAnExplicitOptIn() {
        // too deep for every chain, and this caller cannot bootstrap: the built chain is refused as before
        ChainOptions none = new ChainOptions();
        var params = none.resolve(cpu, 10, 60, false);
        assertNull(none.defaultChoice);
        assertThrows(InsecureParametersException.class, () -> cpu.validate(params));
    }
}
