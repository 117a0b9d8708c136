package dev.polyhe.batch;

import dev.polyhe.core.PolyHe;
import dev.polyhe.core.PrivateInference;
import dev.polyhe.core.ServerKeys;
import dev.polyhe.core.inference.Calibration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What an executor loads once and keeps for every task it runs: the PolyHE instance, the model and its domains, and
 * each key set's evaluation keys (gigabytes at 128 bits, read once per executor, not once per query). Tasks of one
 * executor run in one JVM, so this is per JVM; concurrent tasks wanting the same keys wait for one load.
 */
final class ExecutorCache {
    private static PolyHe polyhe;
    private static boolean releaseAtExit;
    private static final Map<String, PrivateInference> MODELS = new ConcurrentHashMap<>();
    private static final Map<String, Calibration> CALIBRATIONS = new ConcurrentHashMap<>();
    private static final Map<String, ServerKeys> KEYS = new ConcurrentHashMap<>();
    /** Key sets read from storage by this JVM (a test checks that a batch reads each once). */
    static final AtomicInteger KEY_LOADS = new AtomicInteger();

    private ExecutorCache() {}

    static synchronized PolyHe polyhe(int threads) {
        if (polyhe == null) {
            var b = PolyHe.builder();
            if (threads > 0) {
                b.threads(threads);
            }
            polyhe = b.build();
            if (!releaseAtExit) {
                Runtime.getRuntime().addShutdownHook(new Thread(ExecutorCache::release, "polyhe-release"));
                releaseAtExit = true;
            }
        }
        return polyhe;
    }

    /** The model of a served folder with the backend a key set names. */
    static PrivateInference model(BatchSettings s, String backend) {
        return MODELS.computeIfAbsent(
                s.model() + "\n" + backend, k -> polyhe(s.threads()).privateInference(Path.of(s.model()), backend));
    }

    static Calibration calibration(BatchSettings s) {
        return CALIBRATIONS.computeIfAbsent(s.calibration(), f -> Calibration.read(Path.of(f)));
    }

    /** The evaluation keys of a key folder, and whether they were already held. */
    record Keys(ServerKeys keys, boolean cached) {}

    static Keys keys(BatchSettings s, String folder, String backend) throws IOException {
        boolean[] loaded = {false};
        try {
            ServerKeys k = KEYS.computeIfAbsent(folder, f -> {
                try {
                    loaded[0] = true;
                    KEY_LOADS.incrementAndGet();
                    return model(s, backend).loadServerKeys(Path.of(f), s.acceptInsecure());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            return new Keys(k, !loaded[0]);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Releases every key set and the instance (at JVM exit, or between tests). */
    static synchronized void release() {
        KEYS.clear();
        MODELS.clear();
        CALIBRATIONS.clear();
        if (polyhe != null) {
            polyhe.close(); // closes every key set made through it
            polyhe = null;
        }
    }
}
