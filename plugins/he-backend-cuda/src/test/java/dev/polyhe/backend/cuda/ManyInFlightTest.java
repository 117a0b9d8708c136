package dev.polyhe.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeSerializer;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.backend.cuda.DeviceCounts.Snapshot;
import dev.polyhe.backend.cuda.EmulatedDevice.StreamRaceException;
import dev.polyhe.ckks.executor.HostRingExecutor;
import dev.polyhe.ckks.executor.RingExecutor;
import dev.polyhe.ckks.executor.RnsPoly;
import dev.polyhe.ckks.ring.LimbPool;
import dev.polyhe.ckks.scheme.CkksContext;
import dev.polyhe.ckks.scheme.CkksPresets;
import dev.polyhe.ckks.scheme.SchemeParameters;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Many ciphertexts in flight: operations from several threads run on several streams, ordered by events only. On the
 * emulated device (streams are queues run late and interleaved, and every access is race-checked), bootstraps and
 * rotations issued from several threads at once give the very bytes ckks-cpu gives, without a host synchronization;
 * and a wait left out on purpose is caught.
 */
class ManyInFlightTest {
    private static final CkksParameters PARAMS = CkksPresets.get("insecure-test-boot-N10");
    /**
     * Stream waits of two bootstraps from two threads at once (3 384 launches; printed below): the threads' timing
     * decides how the pool's buffers move between the streams, so the count varies from run to run (5 to 18 seen).
     */
    static final int CONCURRENT_BOOTSTRAP_WAITS = 64;

    @Test
    void theEvaluatorRunsAsManyOperationsAtOnceAsItHasStreams() {
        for (int streams : new int[] {1, 4}) {
            try (HeContext ctx = device(streams)) {
                SecretKey sk = ctx.generateSecretKey();
                Evaluator ev = ctx.evaluator(ctx.generateEvaluationKeys(sk, Set.of(1), false, false));
                assertEquals(streams, ev.concurrency());
            }
        }
    }

    /**
     * A read of another stream's result without its event wait (a test-only hook skips it): the emulated device
     * refuses the read, whatever the interleaving; with the wait, the bytes are the host's.
     */
    @Test
    void aMissingEventWaitIsCaughtByTheEmulatedDevice() throws Exception {
        try (LimbPool pool = new LimbPool(1, 1)) {
            SchemeParameters p = new SchemeParameters(CkksPresets.get("insecure-test-N10"), pool);
            RingExecutor host = new HostRingExecutor(p.ring(), p.gadget());
            int level = p.maxLevel();
            long[][] limbs = random(p, level);
            ExecutorService other = Executors.newSingleThreadExecutor();
            try (CudaRingExecutor exec = CudaRingExecutor.open(new EmulatedDevice(1L << 30), p, 2)) {
                // this thread's lane made the tables; the other thread's lane is the other stream
                RnsPoly x = exec.upload(copy(limbs));
                RnsPoly square = other.submit(() -> exec.multiply(x, x, level)).get();
                long[][] expected = host.download(
                        host.multiply(host.upload(copy(limbs)), host.upload(copy(limbs)), level), level + 1);
                assertArrayEquals(expected, exec.download(square, level + 1), "with the wait");

                exec.skipReadWaitsForTests(true);
                RnsPoly y = exec.upload(copy(limbs));
                RnsPoly bad = other.submit(() -> exec.multiply(y, y, level)).get();
                StreamRaceException e = assertThrows(StreamRaceException.class, () -> exec.download(bad, level + 1));
                assertTrue(e.getMessage().contains("no event waited"), e.getMessage());
                exec.skipReadWaitsForTests(false);
                drain(exec); // the other racy accesses still queued fail as they run
            } finally {
                other.shutdown();
            }
        }
    }

    /**
     * Two bootstraps from two threads at once, and twelve rotations from four: the bytes ckks-cpu gives for each, no
     * host synchronization while they are queued, and few stream waits. The counts are printed.
     */
    @Test
    void bootstrapsAndRotationsFromSeveralThreadsGiveTheHostsBytes() throws Exception {
        try (HeContext client = new CkksContext(PARAMS, 2);
                HeContext server = device(4);
                HeContext reference = new CkksContext(PARAMS, 2)) {
            SecretKey sk = client.generateSecretKey();
            int slots = PARAMS.slots();
            EvaluationKeys keys = client.generateEvaluationKeys(sk, Set.of(1, 2, 3), false, Set.of(slots));
            byte[] keyBlob = blob(client.serializer(), s -> out -> s.writeEvaluationKeys(keys, out));
            List<byte[]> queries = new ArrayList<>();
            for (int q = 0; q < 4; q++) {
                double[] x = new double[slots];
                for (int i = 0; i < slots; i++) {
                    x[i] = Math.cos(0.1 * i + q) / 2;
                }
                Ciphertext ct = client.encryptor(sk).encrypt(client.encoder().encode(x, slots, 0, PARAMS.scale()));
                queries.add(blob(client.serializer(), s -> out -> s.writeCiphertext(ct, out)));
            }
            Evaluator onDevice = server.evaluator(read(server, keyBlob));
            Evaluator onHost = reference.evaluator(read(reference, keyBlob));
            List<Ciphertext> inputs = new ArrayList<>();
            for (byte[] q : queries) {
                inputs.add(server.serializer().readCiphertext(new ByteArrayInputStream(q)));
            }
            onDevice.bootstrap(inputs.get(0)); // first use: keys, tables and the circuit's diagonals uploaded
            EmulatedDevice device = (EmulatedDevice) devices.get(devices.size() - 1);

            Snapshot before = device.counts().snapshot();
            List<Ciphertext> boots = atOnce(2, t -> onDevice.bootstrap(inputs.get(t)));
            Snapshot bootstraps = device.counts().snapshot().since(before);
            before = device.counts().snapshot();
            // first uses of two rotations' permutations: uploaded by one stream, published to the others
            List<Ciphertext> rotations = atOnce(12, t -> onDevice.rotate(inputs.get(t % 4), 1 + t % 3));
            Snapshot rotating = device.counts().snapshot().since(before);
            System.out.printf(
                    "insecure-test-boot-N10, 4 streams: two bootstraps from two threads %s%n"
                            + "  twelve rotations from four threads %s%n",
                    bootstraps, rotating);

            for (int t = 0; t < 2; t++) {
                Ciphertext q = reference.serializer().readCiphertext(new ByteArrayInputStream(queries.get(t)));
                assertArrayEquals(bytes(reference, onHost.bootstrap(q)), bytes(server, boots.get(t)), "bootstrap " + t);
            }
            for (int t = 0; t < 12; t++) {
                Ciphertext q = reference.serializer().readCiphertext(new ByteArrayInputStream(queries.get(t % 4)));
                assertArrayEquals(
                        bytes(reference, onHost.rotate(q, 1 + t % 3)),
                        bytes(server, rotations.get(t)),
                        "rotation " + t);
            }
            assertEquals(0, bootstraps.synchronizations(), "the bootstraps waited for the device: " + bootstraps);
            assertEquals(0, rotating.synchronizations(), "the rotations waited for the device: " + rotating);
            assertEquals(0, bootstraps.uploads(), "the bootstraps uploaded: " + bootstraps);
            assertTrue(bootstraps.streamWaits() <= CONCURRENT_BOOTSTRAP_WAITS, "stream waits: " + bootstraps);
        }
    }

    private final List<DeviceApi> devices = new ArrayList<>();

    private HeContext device(int streams) {
        return new CkksCudaBackend(
                        2,
                        () -> {
                            EmulatedDevice d = new EmulatedDevice(4L << 30);
                            devices.add(d);
                            return d;
                        },
                        streams)
                .open(PARAMS);
    }

    private interface Task {
        Ciphertext run(int t);
    }

    /** {@code count} tasks from min(count, 4) threads that start together. */
    private static List<Ciphertext> atOnce(int count, Task task) throws InterruptedException, ExecutionException {
        int threads = Math.min(count, 4);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<Ciphertext>> futures = new ArrayList<>();
            for (int t = 0; t < count; t++) {
                int index = t;
                Callable<Ciphertext> c = () -> {
                    if (index < threads) {
                        start.await();
                    }
                    return task.run(index);
                };
                futures.add(pool.submit(c));
            }
            List<Ciphertext> out = new ArrayList<>();
            for (Future<Ciphertext> f : futures) {
                out.add(f.get());
            }
            return out;
        } finally {
            pool.shutdown();
        }
    }

    /** Runs what is queued; each racy item fails once (and is dropped). */
    private static void drain(CudaRingExecutor exec) {
        for (int i = 0; i < 16; i++) {
            try {
                exec.synchronize();
                return;
            } catch (StreamRaceException e) {
                assertTrue(e.getMessage().contains("no event waited"), e.getMessage());
            }
        }
    }

    private static long[][] random(SchemeParameters p, int level) {
        SplittableRandom random = new SplittableRandom(42);
        long[][] out = new long[level + 1][p.ring().n()];
        for (int k = 0; k <= level; k++) {
            long q = p.ring().modulus(k).value();
            for (int c = 0; c < p.ring().n(); c++) {
                out[k][c] = random.nextLong(q);
            }
        }
        return out;
    }

    private static long[][] copy(long[][] limbs) {
        long[][] c = new long[limbs.length][];
        for (int i = 0; i < limbs.length; i++) {
            c[i] = limbs[i].clone();
        }
        return c;
    }

    private static EvaluationKeys read(HeContext ctx, byte[] blob) throws IOException {
        return ctx.serializer().readEvaluationKeys(new ByteArrayInputStream(blob));
    }

    private static byte[] bytes(HeContext ctx, Ciphertext ct) {
        return blob(ctx.serializer(), s -> out -> s.writeCiphertext(ct, out));
    }

    private interface Writer {
        void write(java.io.OutputStream out) throws IOException;
    }

    private static byte[] blob(HeSerializer s, java.util.function.Function<HeSerializer, Writer> what) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            what.apply(s).write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
