package dev.polyhe.core.encrypted;

import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.engine.encrypted.Layout;
import dev.polyhe.core.engine.encrypted.Packing;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.LoadedModel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Bootstrap plans already made, so that a server's second query of the same shape does not plan again (seconds for
 * a small model, a quarter of a minute for a Pythia-70M-shaped layer). A plan depends on the model, its domains,
 * the key set's parameters, packing and keys, and the input's shape, levels and scales, never on the encrypted
 * values: that is the key. Least recently used plans go first beyond {@value #CAPACITY}.
 */
final class PlanCache {
    static final int CAPACITY = 32;

    private record Key(
            LoadedModel model,
            Calibration calibration,
            String backend,
            String parameterHash,
            Packing packing,
            Set<Integer> rotationSteps,
            boolean conjugation,
            Set<Integer> bootstrapSlots,
            int rows,
            int cols,
            Layout layout,
            int ciphertexts,
            int level,
            double scale) {}

    private final Map<Key, BootstrapPlanner.Planned> plans = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, BootstrapPlanner.Planned> eldest) {
            return size() > CAPACITY;
        }
    };

    /** The plan for these inputs: a cached one (marked reused) or {@code make}'s, then kept. */
    BootstrapPlanner.Planned get(
            KeySet keys,
            LoadedModel model,
            EncryptedTensor embeddings,
            Calibration calibration,
            Supplier<BootstrapPlanner.Planned> make) {
        EvaluationKeys ek = keys.evaluationKeys();
        Key key = new Key(
                model,
                calibration,
                keys.backend(),
                keys.context().parameterHash(),
                keys.packing(),
                Set.copyOf(ek.rotationSteps()),
                ek.hasConjugation(),
                Set.copyOf(ek.bootstrapSlots()),
                embeddings.rows(),
                embeddings.cols(),
                embeddings.layout(),
                embeddings.ciphertexts().length,
                embeddings.level(),
                embeddings.scale());
        BootstrapPlanner.Planned cached;
        synchronized (plans) {
            cached = plans.get(key);
        }
        if (cached != null) {
            return cached.reused();
        }
        BootstrapPlanner.Planned planned = make.get();
        synchronized (plans) {
            plans.put(key, planned);
        }
        return planned;
    }
}
