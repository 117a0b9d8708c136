package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.SecurityLevel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code polyhe bench ckks}: the issue's JSON object, measured; and the OpenFHE-shaped chains. */
class BenchCkksTest {
    @Test
    void measuresEveryOperationAndWritesTheIssueJson() throws Exception {
        var r = polyhe(
                "bench",
                "ckks",
                "--preset",
                "insecure-test-N10",
                "--runs",
                "3",
                "--warmup",
                "1",
                "--threads",
                "1",
                "--format",
                "json");
        assertEquals(0, r.code(), r.err());
        assertNull(System.getProperty("polyhe.cpu.threads"), "--threads leaves the JVM's settings as they were");
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals("ckks-cpu", json.get("backend").asText());
        assertEquals(10, json.get("logN").asInt());
        assertEquals(1, json.get("threads").asInt());
        for (String op : List.of(
                "ntt",
                "encode",
                "encrypt",
                "decrypt",
                "add",
                "mul_plain",
                "mul_relin",
                "rescale",
                "mul_relin_rescale",
                "rotate",
                "rotate_hoisted_8")) {
            JsonNode o = json.get("ops").get(op);
            assertTrue(o != null && o.get("median_ms").asDouble() > 0, op + " in " + json);
            assertEquals(3, o.get("runs").asInt());
        }
        assertTrue(json.get("precision_bits").get("mul_relin").asDouble() > 15, json.toString());
        assertTrue(json.get("precision_bits").get("mul_relin_rescale").asDouble() > 15, json.toString());
        assertTrue(
                json.get("key_mib").get("rotation").asDouble()
                        > json.get("key_mib").get("relin").asDouble(),
                "eight rotation keys outweigh one relinearization key");
        assertTrue(json.get("peak_rss_mib").asDouble() > 0);
    }

    @Test
    void onABootstrappingChainTheOperationsRunAtTheUsersTopLevelNotAtTheCircuitsPrimes() throws Exception {
        var r = polyhe(
                "bench",
                "ckks",
                "--preset",
                "insecure-test-boot-dense-N10",
                "--runs",
                "1",
                "--warmup",
                "0",
                "--threads",
                "1",
                "--format",
                "json");
        assertEquals(0, r.code(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        // ten user levels of 40 bits under 14 circuit primes of 60: a product at a 60-bit prime kept 4 bits
        assertEquals(24, json.get("levels").asInt(), json.toString());
        assertEquals(10, json.get("ops_level").asInt(), json.toString());
        assertTrue(json.get("precision_bits").get("mul_relin_rescale").asDouble() > 15, json.toString());
        var table = polyhe("bench", "ckks", "--preset", "insecure-test-boot-dense-N10", "--runs", "1", "--warmup", "0");
        assertEquals(0, table.code(), table.err());
        assertTrue(table.out().contains("(operations at level 10)"), table.out());
    }

    @Test
    void bootstrapReportsLevelsPrecisionKeysAndSlots() throws Exception {
        var r = polyhe(
                "bench",
                "ckks",
                "--preset",
                "insecure-test-boot-N10",
                "--op",
                "bootstrap",
                "--runs",
                "1",
                "--warmup",
                "0",
                "--threads",
                "1",
                "--format",
                "json");
        assertEquals(0, r.code(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertTrue(json.get("ops").get("bootstrap").get("median_ms").asDouble() > 0, json.toString());
        assertTrue(json.get("ops").get("bootstrap_2_at_once").get("median_ms").asDouble() > 0, json.toString());
        assertTrue(
                json.get("precision_bits").get("bootstrap_2_at_once").asDouble() > 18,
                "two bootstraps at once on one context are as exact as one: " + json.get("precision_bits"));
        JsonNode boot = json.get("bootstrap");
        assertEquals(3, boot.get("levels_left").asInt(), boot.toString());
        assertTrue(boot.get("precision_bits_min").asDouble() > 18, boot.toString());
        assertTrue(boot.get("precision_bits_mean").asDouble()
                >= boot.get("precision_bits_min").asDouble());
        assertEquals(512, boot.get("slots").asInt());
        assertTrue(boot.get("key_mib").asDouble()
                > json.get("key_mib").get("relin").asDouble());
    }

    @Test
    void chainOptionsBuildTheOpenFheShapedChain() {
        CkksParameters p = ChainOptions.chain(16, 24, 59, 7, SecurityLevel.HES_128);
        assertEquals(25, p.logQ().size());
        assertEquals(60, p.logQ().get(0));
        assertEquals(59, p.logQ().get(24));
        assertEquals(List.of(60, 60, 60, 60), p.logP());
        assertEquals(7, p.dnum());
        CkksParameters n14 = ChainOptions.chain(14, 8, 40, 9, SecurityLevel.HES_128);
        assertEquals(List.of(60), n14.logP());
        assertEquals(50, n14.logQ().get(0));
    }

    /** Options that cannot apply are refused, naming them, not ignored. */
    @Test
    void chainOptionsThatCannotApplyAreRefused() {
        var scale = polyhe("bench", "ckks", "--scale-bits", "50", "--dnum", "3", "--runs", "1", "--warmup", "0");
        assertEquals(2, scale.code(), scale.out());
        assertTrue(scale.err().contains("--scale-bits, --dnum") && scale.err().contains("--levels"), scale.err());
        var withPreset = polyhe("bench", "ckks", "--preset", "insecure-test-N10", "--levels", "5", "--runs", "1");
        assertEquals(2, withPreset.code(), withPreset.out());
        assertTrue(withPreset.err().contains("--levels") && withPreset.err().contains("--preset"), withPreset.err());
        var heads = polyhe("bench", "attention", "--heads", "4", "--insecure-test");
        assertEquals(2, heads.code(), "one head's score block is what the paper's Table 5 times: " + heads.err());
    }

    @Test
    void weakBuiltChainsAreRefusedWithoutTheOptIn() {
        var r = polyhe("bench", "ckks", "--logN", "12", "--levels", "30", "--runs", "1", "--warmup", "0");
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().contains("insecure-test"), r.err());
    }
}
