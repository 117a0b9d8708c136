package dev.polyhe.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeSerializer;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.ckks.scheme.CkksContext;
import dev.polyhe.ckks.scheme.CkksPresets;
import dev.polyhe.ckks.scheme.SchemeBackend;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The backend is the server's choice, not the key's: a client's keys and query made on the host executor (what
 * ckks-cpu runs) evaluate on ckks-cuda (here on the emulated device) and come back as the very bytes the host would
 * have produced, and the reverse. Products, rotations and a bootstrap, through the serialized blobs a server
 * receives and returns.
 */
class CrossBackendTest {
    private static final CkksParameters PARAMS = CkksPresets.get("insecure-test-boot-N10");
    private static final int USER_LEVEL = 3;

    @Test
    void bothBackendsShareOneDataFormat() {
        assertEquals(SchemeBackend.DATA_FORMAT, new CkksCudaBackend(1).dataFormat());
    }

    /** A served model's weight cache sizes itself by the memory its encoded weights live in. */
    @Test
    void theDeviceContextReportsTheDevicesMemoryAndTheHostNone() {
        try (HeContext host = host();
                HeContext device = device()) {
            assertEquals(0, host.deviceMemoryBytes());
            assertEquals(4L << 30, device.deviceMemoryBytes());
        }
    }

    @Test
    void hostKeysEvaluateOnTheDeviceToTheHostsBytes() throws IOException {
        try (HeContext client = host();
                HeContext server = device();
                HeContext reference = host()) {
            roundTrip(client, server, reference);
        }
    }

    @Test
    void deviceKeysEvaluateOnTheHostToTheDevicesBytes() throws IOException {
        try (HeContext client = device();
                HeContext server = host();
                HeContext reference = device()) {
            roundTrip(client, server, reference);
        }
    }

    private static HeContext host() {
        return new CkksContext(PARAMS, 2);
    }

    private static HeContext device() {
        // each operation on the next of four streams: every operand crosses streams
        return new CkksCudaBackend(2, () -> new EmulatedDevice(4L << 30), 4, true).open(PARAMS);
    }

    /** The client's keys and query, evaluated by {@code server} and by {@code reference}: the answers' bytes agree. */
    private static void roundTrip(HeContext client, HeContext server, HeContext reference) throws IOException {
        SecretKey sk = client.generateSecretKey();
        int slots = PARAMS.slots();
        EvaluationKeys keys = client.generateEvaluationKeys(sk, Set.of(1, 3), false, Set.of(slots));
        double[] x = new double[slots];
        for (int i = 0; i < slots; i++) {
            x[i] = Math.cos(0.1 * i) / 2;
        }
        // at the top user level (the chain's upper primes are the bootstrap's)
        Ciphertext query = client.encryptor(client.generatePublicKey(sk))
                .encrypt(client.encoder().encode(x, slots, USER_LEVEL, PARAMS.scale()));
        byte[] keyBlob = blob(s -> out -> s.writeEvaluationKeys(keys, out), client);
        byte[] queryBlob = blob(s -> out -> s.writeCiphertext(query, out), client);

        byte[] served = evaluate(server, keyBlob, queryBlob);
        byte[] expected = evaluate(reference, keyBlob, queryBlob);
        assertArrayEquals(expected, served, "the answer's bytes differ between the two executors");

        Ciphertext answer = client.serializer().readCiphertext(new ByteArrayInputStream(served));
        double[] back = client.encoder().decode(client.decryptor(sk).decrypt(answer));
        for (int i = 0; i < slots; i++) {
            double want = x[(i + 3) % slots] * x[(i + 3) % slots];
            assertEquals(want, back[i], 1e-4, "slot " + i);
        }
    }

    /**
     * What a server does with the blobs: a square, a rotation by 3, a bootstrap of what is left, the answer's bytes.
     */
    private static byte[] evaluate(HeContext server, byte[] keyBlob, byte[] queryBlob) throws IOException {
        HeSerializer s = server.serializer();
        EvaluationKeys keys = s.readEvaluationKeys(new ByteArrayInputStream(keyBlob));
        Ciphertext q = s.readCiphertext(new ByteArrayInputStream(queryBlob));
        Evaluator ev = server.evaluator(keys);
        Ciphertext r = ev.bootstrap(ev.dropToLevel(ev.rotate(ev.multiplyAndRescale(q, q), 3), 0));
        return blob(x -> out -> x.writeCiphertext(r, out), server);
    }

    private interface Writer {
        void write(java.io.OutputStream out) throws IOException;
    }

    private static byte[] blob(Function<HeSerializer, Writer> what, HeContext ctx) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        what.apply(ctx.serializer()).write(out);
        return out.toByteArray();
    }
}
