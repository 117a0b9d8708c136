package dev.polyhe.backend.cpu.ckks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.InsecureParametersException;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.backend.cpu.ring.LimbPool;
import java.util.List;
import org.junit.jupiter.api.Test;

class CpuParametersTest {
    @Test
    void securePresetsFitTheStandardWithTheirActualPrimes() {
        try (LimbPool pool = new LimbPool(2)) {
            for (String name : CkksPresets.names()) {
                CkksParameters literal = CkksPresets.get(name);
                if (literal.security() != SecurityLevel.HES_128) {
                    continue;
                }
                CpuParameters p = new CpuParameters(literal, pool);
                int bound = SecurityStandard.maxLogQP(literal.logN());
                assertTrue(p.logQP() <= bound, name + ": log2(QP) = " + p.logQP() + " > " + bound);
                // rescaling primes sit within 2^-16 of the scale, so one level of drift still adds exactly (a
                // bootstrapping chain's larger primes are the circuit's, which keeps its scales exact by itself)
                for (int i = 1; i <= p.maxLevel() && literal.logQ().get(i) == literal.logScale(); i++) {
                    double drift = Math.abs(p.q(i) / literal.scale() - 1);
                    assertTrue(drift < OperandCheck.SCALE_TOLERANCE, name + ": q_" + i + " drifts " + drift);
                }
            }
        }
    }

    @Test
    void n16PresetMatchesOpenFheChain() {
        CkksParameters p = CkksPresets.get("N16-128");
        assertEquals(25, p.logQ().size());
        assertEquals(4, p.logP().size());
        assertEquals(7, p.dnum());
        assertEquals(1716, p.logQP());
    }

    @Test
    void weakOrSparseParametersAreRefusedWithoutOptIn() {
        try (LimbPool pool = new LimbPool(1)) {
            CkksParameters tooBig = new CkksParameters(13, CkksPresets.chain(60, 50, 4), List.of(60), 5, 50, 0,
                    SecurityLevel.HES_128);
            InsecureParametersException e = assertThrows(InsecureParametersException.class,
                    () -> new CpuParameters(tooBig, pool));
            assertTrue(e.getMessage().contains("218"), e.getMessage());
            CkksParameters sparse = new CkksParameters(14, CkksPresets.chain(50, 40, 2), List.of(60), 3, 40, 192,
                    SecurityLevel.HES_128);
            assertThrows(InsecureParametersException.class, () -> new CpuParameters(sparse, pool));
            CkksParameters sparseTest = new CkksParameters(10, CkksPresets.chain(40, 30, 1), List.of(45), 2, 30, 64,
                    SecurityLevel.INSECURE_TEST);
            assertEquals(64, new CpuParameters(sparseTest, pool).literal().hammingWeight());
        }
    }

    @Test
    void hashDependsOnEveryField() {
        try (LimbPool pool = new LimbPool(1)) {
            CkksParameters a = new CkksParameters(10, CkksPresets.chain(40, 30, 1), List.of(45), 2, 30, 0,
                    SecurityLevel.INSECURE_TEST);
            CkksParameters b = new CkksParameters(10, CkksPresets.chain(40, 30, 1), List.of(45), 2, 31, 0,
                    SecurityLevel.INSECURE_TEST);
            assertEquals(new CpuParameters(a, pool).hash(), new CpuParameters(a, pool).hash());
            assertNotEquals(new CpuParameters(a, pool).hash(), new CpuParameters(b, pool).hash());
        }
    }

    @Test
    void specialPrimesTooSmallForADigitAreRefused() {
        try (LimbPool pool = new LimbPool(1)) {
            CkksParameters p = new CkksParameters(10, CkksPresets.chain(40, 30, 3), List.of(30), 1, 30, 0,
                    SecurityLevel.INSECURE_TEST);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new CpuParameters(p, pool));
            assertTrue(e.getMessage().contains("dnum"), e.getMessage());
        }
    }
}
