package dev.polyhe.core.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.engine.encrypted.Packing;
import dev.polyhe.core.engine.encrypted.RefreshPlan;
import dev.polyhe.core.engine.symbolic.SymbolicContext;
import dev.polyhe.core.inference.LoadedModel;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A plan is made once per model, key set and input shape, whatever the encrypted values. */
class PlanCacheTest {
    private static final CkksParameters PARAMS =
            new CkksParameters(10, List.of(52, 40, 40, 40, 60), List.of(60), 2, 40, 0, SecurityLevel.INSECURE_TEST);
    private static final long[] PRIMES = {
        (1L << 52) - 47, (1L << 40) - 195, (1L << 40) + 61, (1L << 40) + 105, (1L << 60) - 93
    };

    private final SymbolicContext ctx = new SymbolicContext(PARAMS, PRIMES, 3);
    private final dev.polyhe.api.he.SecretKey sk = ctx.generateSecretKey();
    private final KeySet keys = new KeySet(
            "ckks-cpu",
            ctx,
            sk,
            ctx.generateEvaluationKeys(sk, Set.of(1, 2), false, Set.of(512)),
            new Packing(4, 128, 1));
    private final AtomicInteger made = new AtomicInteger();

    private BootstrapPlanner.Planned make() {
        made.incrementAndGet();
        return new BootstrapPlanner.Planned(RefreshPlan.GREEDY.with("layers.*.mlp#0"), 7, 9, 3, 1.5, null, List.of());
    }

    private EncryptedTensor input(int rows, double value) {
        double[] v = new double[rows * 8];
        java.util.Arrays.fill(v, value);
        return keys.engine().fromPlain(new Matrix(rows, 8, v));
    }

    @Test
    void theSecondQueryOfAShapeReusesThePlanAndAnotherShapePlansAgain() {
        PlanCache cache = new PlanCache();
        LoadedModel model = new LoadedModel(Path.of("m"), "gpt_neox", null);
        var first = cache.get(keys, model, input(3, 0.5), null, this::make);
        var second = cache.get(keys, model, input(3, -0.25), null, this::make);
        assertEquals(1, made.get(), "other values, same shape: planned once");
        assertEquals(first.plan(), second.plan());
        assertEquals(7, second.bootstraps());
        assertEquals(0, second.symbolicRuns(), "a reused plan costs no symbolic run");
        assertTrue(second.describe().contains("planned before"), second.describe());

        cache.get(keys, model, input(4, 0.5), null, this::make);
        assertEquals(2, made.get(), "another number of tokens is another plan");
        cache.get(keys, new LoadedModel(Path.of("other"), "gpt_neox", null), input(3, 0.5), null, this::make);
        assertEquals(3, made.get(), "another model is another plan");
    }
}
