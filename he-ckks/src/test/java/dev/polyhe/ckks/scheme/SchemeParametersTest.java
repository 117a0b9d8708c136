package dev.polyhe.ckks.scheme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.InsecureParametersException;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.ckks.ring.LimbPool;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemeParametersTest {
    @Test
    void securePresetsFitTheStandardWithTheirActualPrimes() {
        try (LimbPool pool = new LimbPool(2)) {
            for (String name : CkksPresets.names()) {
                CkksParameters literal = CkksPresets.get(name);
                if (literal.security() != SecurityLevel.HES_128) {
                    continue;
                }
                SchemeParameters p = new SchemeParameters(literal, pool);
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

    /**
     * The 128-bit bounds as published, not as the code holds them: the HE Security Standard (homomorphicencryption.org,
     * November 2018), table of 128-bit classical parameters for a uniform ternary secret, n = 1024 .. 32768: log q
     * 27, 54, 109, 218, 438, 881; OpenFHE's HEStd_128_classic ternary rows (src/core/lib/lattice/stdlatticeparms.cpp)
     * for n = 65536 and 131072: 1747 and 3523.
     */
    @Test
    void theBoundsAreThePublishedOnes() {
        int[] published = {27, 54, 109, 218, 438, 881, 1747, 3523};
        for (int logN = 10; logN <= 17; logN++) {
            assertEquals(published[logN - 10], SecurityStandard.maxLogQP(logN), "N = 2^" + logN);
        }
        assertEquals(0, SecurityStandard.maxLogQP(9), "no ring below 2^10 is 128-bit at any modulus");
    }

    @Test
    void theRecommendedPresetIsTheSmallest128BitRingThatHoldsTheCircuitElseTheBootstrappingOne() {
        assertEquals("N13-128", CkksPresets.recommended(10, 3, true).orElseThrow());
        assertEquals("N14-128", CkksPresets.recommended(10, 4, true).orElseThrow());
        assertEquals("N15-128", CkksPresets.recommended(15, 2, false).orElseThrow(), "the ring the packing needs");
        assertEquals("N16-128", CkksPresets.recommended(10, 24, false).orElseThrow());
        assertEquals("N16-boot-128", CkksPresets.recommended(10, 25, true).orElseThrow());
        assertTrue(CkksPresets.recommended(10, 25, false).isEmpty(), "too deep, and bootstrapping not allowed");
        assertTrue(CkksPresets.recommended(17, 3, true).isEmpty(), "no 128-bit preset has a ring of 2^17");
        for (String name : CkksPresets.names()) {
            CkksPresets.recommended(10, 1, true)
                    .ifPresent(r -> assertEquals(
                            SecurityLevel.HES_128, CkksPresets.get(r).security(), name));
        }
    }

    @Test
    void parametersAreRefusedBeforeAnyPrimeIsSearchedFor() {
        // 1 748 bits at N = 2^16, one above the bound: refused by validate, before the 29 primes are looked for
        List<Integer> q = new java.util.ArrayList<>(CkksPresets.chain(60, 59, 24));
        q.add(32);
        CkksParameters over = new CkksParameters(16, q, List.of(60, 60, 60, 60), 5, 59, 0, SecurityLevel.HES_128);
        assertEquals(1748, over.logQP());
        InsecureParametersException e =
                assertThrows(InsecureParametersException.class, () -> SecurityStandard.check(over, over.logQP()));
        assertTrue(e.getMessage().contains("1747"), e.getMessage());
        IllegalArgumentException many = assertThrows(
                IllegalArgumentException.class,
                () -> new CkksParameters(
                        17,
                        java.util.Collections.nCopies(500, 40),
                        List.of(60),
                        1,
                        40,
                        0,
                        SecurityLevel.INSECURE_TEST));
        assertTrue(many.getMessage().contains("500") && many.getMessage().contains("100"), many.getMessage());
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
            CkksParameters tooBig =
                    new CkksParameters(13, CkksPresets.chain(60, 50, 4), List.of(60), 5, 50, 0, SecurityLevel.HES_128);
            InsecureParametersException e =
                    assertThrows(InsecureParametersException.class, () -> new SchemeParameters(tooBig, pool));
            assertTrue(e.getMessage().contains("218"), e.getMessage());
            CkksParameters sparse = new CkksParameters(
                    14, CkksPresets.chain(50, 40, 2), List.of(60), 3, 40, 192, SecurityLevel.HES_128);
            assertThrows(InsecureParametersException.class, () -> new SchemeParameters(sparse, pool));
            CkksParameters sparseTest = new CkksParameters(
                    10, CkksPresets.chain(40, 30, 1), List.of(45), 2, 30, 64, SecurityLevel.INSECURE_TEST);
            assertEquals(64, new SchemeParameters(sparseTest, pool).literal().hammingWeight());
        }
    }

    @Test
    void hashDependsOnEveryField() {
        try (LimbPool pool = new LimbPool(1)) {
            CkksParameters a = new CkksParameters(
                    10, CkksPresets.chain(40, 30, 1), List.of(45), 2, 30, 0, SecurityLevel.INSECURE_TEST);
            CkksParameters b = new CkksParameters(
                    10, CkksPresets.chain(40, 30, 1), List.of(45), 2, 31, 0, SecurityLevel.INSECURE_TEST);
            assertEquals(new SchemeParameters(a, pool).hash(), new SchemeParameters(a, pool).hash());
            assertNotEquals(new SchemeParameters(a, pool).hash(), new SchemeParameters(b, pool).hash());
        }
    }

    @Test
    void specialPrimesTooSmallForADigitAreRefused() {
        try (LimbPool pool = new LimbPool(1)) {
            CkksParameters p = new CkksParameters(
                    10, CkksPresets.chain(40, 30, 3), List.of(30), 1, 30, 0, SecurityLevel.INSECURE_TEST);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> new SchemeParameters(p, pool));
            assertTrue(e.getMessage().contains("dnum"), e.getMessage());
        }
    }
}
