package dev.polyhe.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.backend.cuda.DeviceCounts.Snapshot;
import dev.polyhe.ckks.scheme.CkksContext;
import dev.polyhe.ckks.scheme.CkksPresets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Encoding on the device (the special FFT, scaling, rounding, residues and NTTs all there) gives the host's
 * plaintext byte for byte: full and sparse slots, one slot, complex values, every level; and values too large for a
 * long keep the host's path.
 */
class DeviceEncodingTest {
    private static final CkksParameters PARAMS = CkksPresets.get("insecure-test-N12");
    private final SplittableRandom random = new SplittableRandom(20261205);

    /** The device under test: emulated here; GPU 0 in {@link GpuEncodingTest}. */
    DeviceApi device(long capacity) {
        return new EmulatedDevice(capacity);
    }

    @Test
    void theDeviceEncodesAsTheHostDoes() throws IOException {
        DeviceApi device = device(2L << 30);
        try (HeContext host = new CkksContext(PARAMS, 2);
                HeContext gpu = new CkksCudaBackend(2, () -> device).open(PARAMS)) {
            for (int slots : new int[] {PARAMS.slots(), 64, 2, 1}) {
                for (int level : new int[] {PARAMS.maxLevel(), 0}) {
                    double[] re = values(slots, 1);
                    double[] im = values(slots / 2, 0.5); // fewer values than slots: the rest are zero
                    Snapshot before = device.counts().snapshot();
                    Plaintext encoded = gpu.encoder().encodeComplex(re, im, slots, level, PARAMS.scale());
                    Snapshot used = device.counts().snapshot().since(before);
                    byte[] onDevice = bytes(gpu, encoded);
                    byte[] onHost = bytes(host, host.encoder().encodeComplex(re, im, slots, level, PARAMS.scale()));
                    assertArrayEquals(onHost, onDevice, slots + " slots at level " + level);
                    // the device did it: one upload (2 × slots doubles), the FFT, the rounding, the NTT; no download
                    assertEquals(1, used.uploads(), used.toString());
                    assertEquals(16L * slots, used.uploadBytes(), used.toString());
                    assertEquals(0, used.downloads(), used.toString());
                }
            }
            // coefficients beyond 2^62: the host reduces them (the device path would not be exact)
            double[] huge = {0x1p30, -0x1p29};
            double scale = 0x1p40;
            assertArrayEquals(
                    bytes(host, host.encoder().encode(huge, 2, PARAMS.maxLevel(), scale)),
                    bytes(gpu, gpu.encoder().encode(huge, 2, PARAMS.maxLevel(), scale)),
                    "huge values");
        }
    }

    @Test
    void nonFiniteValuesAreRefusedBeforeAnythingIsUploaded() {
        DeviceApi device = device(1L << 30);
        try (HeContext gpu = new CkksCudaBackend(1, () -> device).open(PARAMS)) {
            Snapshot before = device.counts().snapshot();
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class,
                    () -> gpu.encoder().encode(new double[] {1, Double.NaN}, 2, 0, PARAMS.scale()));
            assertTrue(e.getMessage().contains("real[1]"), e.getMessage());
            assertEquals(0, device.counts().snapshot().since(before).uploads());
        }
    }

    private double[] values(int count, double magnitude) {
        double[] v = new double[count];
        for (int i = 0; i < count; i++) {
            v[i] = magnitude * (2 * random.nextDouble() - 1);
        }
        return v;
    }

    private static byte[] bytes(HeContext ctx, Plaintext p) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ctx.serializer().writePlaintext(p, out);
        return out.toByteArray();
    }
}
