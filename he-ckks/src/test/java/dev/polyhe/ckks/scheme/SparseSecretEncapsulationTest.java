package dev.polyhe.ckks.scheme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.ckks.bootstrap.BootstrapParameters;
import dev.polyhe.ckks.bootstrap.Bootstrapper;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A dense secret bootstraps through an ephemeral sparse one: the key to it exists modulo q_0·p_0 only, the
 * keys travel through a blob, and bootstrapping keys serve the slot counts they were made for and no other.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparseSecretEncapsulationTest {
    private CkksContext ctx;
    private SecretKey sk;
    private static final int SLOTS = 64;

    @BeforeAll
    void open() {
        ctx = new CkksContext(CkksPresets.get("insecure-test-boot-dense-N10"), 2);
        sk = ctx.generateSecretKey();
    }

    @AfterAll
    void close() {
        ctx.close();
    }

    @Test
    void theSecurePresetIsDenseWithinTheStandardAndLeavesTenLevels() {
        SchemeParameters p =
                new SchemeParameters(CkksPresets.get("N16-boot-128"), new dev.polyhe.ckks.ring.LimbPool(1, 1));
        assertEquals(0, p.literal().hammingWeight(), "the key set's secret is dense");
        assertTrue(BootstrapParameters.encapsulates(p));
        assertEquals(12, BootstrapParameters.of(p).modulusRange(), "K from the ephemeral weight 32");
        Bootstrapper b = new Bootstrapper(p, null, null);
        assertTrue(b.outputLevel() >= 9, "levels left: " + b.describe());
        assertTrue(p.logQP() <= 1747, "log QP " + p.logQP());
    }

    @Test
    void theKeySizeEstimateIsWhatGenerationHolds() {
        Set<Integer> steps = Set.of(1, 2, 4, -1, 0);
        long estimate = ctx.evaluationKeyBytes(steps, false, Set.of(SLOTS));
        CkksEvaluationKeys keys = (CkksEvaluationKeys) ctx.generateEvaluationKeys(sk, steps, false, Set.of(SLOTS));
        long held = keys.relinearizationKeyBytes() + keys.rotationKeyBytes() - keys.encapsulationKeyBytes();
        assertEquals(held, estimate, "every switching key counted, the encapsulation keys left out");
        assertEquals(
                ctx.evaluationKeyBytes(Set.of(), false, Set.of()),
                keys.relinearizationKeyBytes(),
                "no rotation: the relinearization key alone");
    }

    @Test
    void theKeyToTheSparseSecretExistsModuloQ0TimesP0Only() {
        CkksEvaluationKeys keys = (CkksEvaluationKeys) ctx.generateEvaluationKeys(sk, Set.of(), false, Set.of(SLOTS));
        assertNotNull(keys.encapsulation, "a dense secret's bootstrapping keys encapsulate");
        SwitchingKey down = keys.encapsulation.toEphemeral();
        var ring = ctx.schemeParameters().ring();
        assertEquals(1, down.digitCount());
        assertTrue(down.levelZeroOnly(ring.qCount()));
        for (int part = 0; part < 2; part++) {
            assertNotNull(down.digits()[0][part][0], "q_0 limb");
            for (int i = 1; i < ring.qCount(); i++) {
                assertNull(down.digits()[0][part][i], "limb of q_" + i + " must not exist");
            }
            assertNotNull(down.digits()[0][part][ring.pIndex(0)], "p_0 limb");
            for (int t = 1; t < ring.pCount(); t++) {
                assertNull(down.digits()[0][part][ring.pIndex(t)], "limb of p_" + t + " must not exist");
            }
        }
        assertEquals(2L * 2 * ring.n() * 8, down.sizeBytes());
        assertFalse(keys.encapsulation.toMain().levelZeroOnly(ring.qCount()));
    }

    /**
     * The modulus the sparse secret is exposed under, on the 128-bit preset: q_0·p_0 = 2^112, below the 2^121 of
     * the encapsulation paper's N = 2^16 sets (Lattigo's N16QP1767H32768H32: q_0 of 60 bits, p_0 of 61, h = 32).
     */
    @Test
    void theSecurePresetExposesTheSparseSecretModuloAtMostTwoToThe121() {
        var preset = CkksPresets.get("N16-boot-128");
        int bits = preset.logQ().get(0) + preset.logP().get(0);
        assertEquals(112, bits);
        assertTrue(bits <= 121);
        assertEquals(BootstrapParameters.EPHEMERAL_HAMMING_WEIGHT, 32);
    }

    @Test
    void aSparseSecretNeedsNoEncapsulation() {
        try (CkksContext sparse = new CkksContext(CkksPresets.get("insecure-test-boot-N10"), 2)) {
            SecretKey s = sparse.generateSecretKey();
            CkksEvaluationKeys keys =
                    (CkksEvaluationKeys) sparse.generateEvaluationKeys(s, Set.of(), false, Set.of(SLOTS));
            assertNull(keys.encapsulation);
        }
    }

    @Test
    void reloadedKeysBootstrapTheirSlotCountAndRefuseOthers() throws IOException {
        EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Set.of(), false, Set.of(SLOTS));
        ByteArrayOutputStream blob = new ByteArrayOutputStream();
        ctx.serializer().writeEvaluationKeys(keys, blob);
        EvaluationKeys reloaded = ctx.serializer().readEvaluationKeys(new ByteArrayInputStream(blob.toByteArray()));
        assertEquals(Set.of(SLOTS), reloaded.bootstrapSlots());
        assertTrue(reloaded.bootstraps(SLOTS));
        assertFalse(reloaded.bootstraps(2 * SLOTS));
        assertEquals(keys.rotationKeyBytes(), reloaded.rotationKeyBytes(), "encapsulation keys travel too");

        double[] v = new double[SLOTS];
        Random r = new Random(7);
        for (int i = 0; i < SLOTS; i++) {
            v[i] = 2 * r.nextDouble() - 1;
        }
        var server = ctx.evaluator(reloaded);
        Ciphertext in = ctx.encryptor(sk)
                .encrypt(ctx.encoder().encode(v, SLOTS, 0, ctx.parameters().scale()));
        double[] out = ctx.encoder().decode(ctx.decryptor(sk).decrypt(server.bootstrap(in)));
        double max = 0;
        for (int i = 0; i < SLOTS; i++) {
            max = Math.max(max, Math.abs(out[i] - v[i]));
        }
        assertTrue(max < 0x1p-20, "bootstrapped by the server's reloaded keys: error " + max);

        Ciphertext wide = ctx.encryptor(sk)
                .encrypt(ctx.encoder()
                        .encode(
                                new double[2 * SLOTS],
                                2 * SLOTS,
                                0,
                                ctx.parameters().scale()));
        HeException e = assertThrows(HeException.class, () -> server.bootstrap(wide));
        assertTrue(
                e.getMessage().contains("do not bootstrap " + 2 * SLOTS + " slots")
                        && e.getMessage().contains("[" + SLOTS + "]"),
                e.getMessage());
    }

    @Test
    void aSlotCountThatIsNotAPowerOfTwoIsRefused() {
        assertThrows(HeException.class, () -> ctx.generateEvaluationKeys(sk, Set.of(), false, Set.of(48)));
    }
}
