package dev.polyhe.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.backend.cuda.DeviceCounts.Snapshot;
import dev.polyhe.ckks.scheme.CkksPresets;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The GPU's fixed costs, held without a GPU: what one operation asks of the device, counted on the emulated device.
 * A launch costs the host a few microseconds and a host synchronization idles the device until the host queues
 * more, so an operation must be a few dozen launches and no synchronization; an upload inside the evaluation (a
 * scalar, a table) is a host round trip that the data never needed. The counts are printed, so a change that moves
 * them shows by how much.
 */
class LaunchBudgetTest {
    /** Launches of one rotation at the top level: ModUp 5, inner product 1, two ModDowns 7 each, 3 to finish. */
    static final int ROTATION_LAUNCHES = 24;
    /**
     * Launches of mul + relin + rescale at the top level: the tensor, ModUp 5, the inner product, and per component
     * one division by P·q_l (P·d added, INTT, scale, excess, conversion, NTT, combine: 9).
     */
    static final int PRODUCT_LAUNCHES = 26;
    /** Launches of one rescale of a ciphertext: per polynomial a limb's INTT, the lift, an NTT, the combine. */
    static final int RESCALE_LAUNCHES = 12;
    /** Launches of a full-slot bootstrap on insecure-test-boot-N10 (5-prime digits, 512 slots): 1 692 measured. */
    static final int BOOTSTRAP_LAUNCHES = 1750;

    @Test
    void operationsAtTheTopOfN16Boot128AreFewLaunchesAndNoSynchronization() {
        EmulatedDevice device = EmulatedDevice.countingOnly(1L << 40);
        CkksParameters parameters = CkksPresets.get(CkksPresets.BOOTSTRAPPING_128);
        try (HeContext ctx = new CkksCudaBackend(2, () -> device).open(parameters)) {
            SecretKey sk = ctx.generateSecretKey();
            EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Set.of(1), false, false);
            Evaluator ev = ctx.evaluator(keys);
            int top = parameters.maxLevel();
            double[] x = new double[parameters.slots()];
            Ciphertext ct = ctx.encryptor(sk).encrypt(ctx.encoder().encode(x, x.length, top, parameters.scale()));
            // first uses upload the keys and the level's tables; from then on nothing is uploaded
            ev.rotate(ct, 1);
            ev.multiplyAndRescale(ct, ct);

            Snapshot rotation = count(device, () -> ev.rotate(ct, 1));
            Snapshot product = count(device, () -> ev.multiplyAndRescale(ct, ct));
            Ciphertext product2 = ev.multiply(ct, ct);
            Snapshot rescale = count(device, () -> ev.rescale(product2));
            Snapshot constants = count(device, () -> ev.addConstant(ev.multiplyConstant(ct, 0.25), 1.5));
            Snapshot encode = count(device, () -> ctx.encoder().encode(x, x.length, top, parameters.scale()));
            System.out.printf(
                    "N16-boot-128, level %d: rotation %s%n  mul+relin+rescale %s%n  rescale %s%n"
                            + "  constant product and sum %s%n  encode %s%n",
                    top, rotation, product, rescale, constants, encode);

            within(rotation, ROTATION_LAUNCHES, "a rotation");
            within(product, PRODUCT_LAUNCHES, "mul + relin + rescale");
            within(rescale, RESCALE_LAUNCHES, "a rescale");
            within(constants, 3, "a constant product and a constant sum (scalars as kernel parameters)");
            // a plaintext: its slots in one copy, the FFT, rounding, residues and NTT on the device
            assertEquals(1, encode.uploads(), "an encode uploads its slots once: " + encode);
            assertEquals(16L * parameters.slots(), encode.uploadBytes(), "2 × slots doubles: " + encode);
            assertTrue(encode.launches() <= 5 && encode.synchronizations() == 0, "an encode: " + encode);
        }
    }

    /**
     * With one stream (the legacy default stream, as before several) and with four, called from one thread: the same
     * launches, and no event recorded or waited for.
     */
    @Test
    void aBootstrapQueuesItsWorkWithoutWaitingOrUploading() {
        long one = bootstrapLaunches(1);
        long four = bootstrapLaunches(4);
        assertEquals(one, four, "one thread's bootstrap on four streams made other launches than on one");
    }

    private static long bootstrapLaunches(int streams) {
        EmulatedDevice device = new EmulatedDevice(4L << 30);
        CkksParameters parameters = CkksPresets.get("insecure-test-boot-N10");
        try (HeContext ctx = new CkksCudaBackend(2, () -> device, streams).open(parameters)) {
            SecretKey sk = ctx.generateSecretKey();
            int slots = parameters.slots();
            EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Set.of(), false, Set.of(slots));
            Evaluator ev = ctx.evaluator(keys);
            double[] x = new double[slots];
            for (int i = 0; i < slots; i++) {
                x[i] = Math.sin(i);
            }
            Ciphertext bottom = ev.dropToLevel(
                    ctx.encryptor(sk)
                            .encrypt(ctx.encoder().encode(x, slots, parameters.maxLevel(), parameters.scale())),
                    0);
            ev.bootstrap(bottom); // builds the circuit's diagonals and uploads them, with its keys
            Ciphertext[] out = new Ciphertext[1];
            Snapshot bootstrap = count(device, () -> out[0] = ev.bootstrap(bottom));
            System.out.printf(
                    "insecure-test-boot-N10, %d slots, %d streams: bootstrap %s%n", slots, streams, bootstrap);
            within(bootstrap, BOOTSTRAP_LAUNCHES, "a bootstrap");

            double[] back = ctx.encoder().decode(ctx.decryptor(sk).decrypt(out[0]));
            double worst = 0;
            for (int i = 0; i < slots; i++) {
                worst = Math.max(worst, Math.abs(back[i] - x[i]));
            }
            assertTrue(worst < 0x1p-15, "the bootstrap queued without waiting is still right: worst error " + worst);
            return bootstrap.launches();
        }
    }

    private static Snapshot count(EmulatedDevice device, Supplier<?> op) {
        Snapshot before = device.counts().snapshot();
        op.get();
        return device.counts().snapshot().since(before);
    }

    private static void within(Snapshot s, int launches, String what) {
        assertEquals(0, s.synchronizations(), what + " waited for the device: " + s);
        assertEquals(0, s.uploads(), what + " uploaded: " + s);
        assertEquals(0, s.downloads(), what + " read back: " + s);
        // one thread stays on one stream: nothing to order with another
        assertEquals(0, s.eventRecords() + s.streamWaits(), what + " from one thread ordered streams: " + s);
        assertTrue(s.launches() <= launches, what + " took more than " + launches + " launches: " + s);
    }
}
