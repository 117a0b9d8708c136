package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.model.ModelInput;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.bench.RandomCheckpoint;
import dev.polyhe.core.bench.RandomCheckpoint.Architecture;
import dev.polyhe.core.bench.RandomCheckpoint.Init;
import dev.polyhe.core.bench.RandomCheckpoint.Shape;
import dev.polyhe.core.config.PluginChoice;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.encrypted.OutputAgreement;
import dev.polyhe.core.engine.ckks.PrimitiveKind;
import dev.polyhe.core.inference.Calibration;
import dev.polyhe.core.inference.InferenceResult;
import dev.polyhe.core.inference.InferenceService;
import dev.polyhe.core.inference.LoadedModel;
import dev.polyhe.core.inference.ModelInputs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bootstrap planner against greedy placement, on real encrypted runs of a generated two-layer GPT-NeoX on the
 * small bootstrapping ring: the planned run takes no more bootstraps, exactly as many as planned, at the same
 * accuracy; and {@code --explain-plan} prints the plan without keys.
 */
class BootstrapPlannerTest {
    private static final String PRESET = "insecure-test-boot-dense-N10";

    @TempDir
    Path dir;

    @Test
    void thePlannedRunTakesNoMoreBootstrapsThanGreedyPlacementAtTheSameAccuracy() throws Exception {
        Shape shape = new Shape("gpt_neox", 32, 2, 96, 64, 2, 0.25);
        Path model = RandomCheckpoint.write(dir.resolve("m"), Architecture.GPT_NEOX, shape, Init.HF, 5);
        Path inputFile = Files.writeString(model.resolve("input.json"),
                RandomCheckpoint.randomInput(Architecture.GPT_NEOX, shape, 5, 5));
        try (PolyHe polyhe = PolyHe.builder().build()) {
            InferenceService service = polyhe.inference()
                    .withAttention(new PluginChoice("power-softmax", Map.of("p", 4, "epsilon", 0.001)));
            LoadedModel loaded = service.load(model);
            List<ModelInput> inputs = ModelInputs.read(inputFile, loaded.model());
            Calibration cal = service.calibrate(loaded, inputs);
            InferenceResult poly = service.compare(loaded, inputs, cal).polynomial().get(0);
            HeBackend backend = polyhe.plugins().backend("ckks-cpu");
            EncryptedInference planned = new EncryptedInference(service);
            var info = loaded.model().info();
            try (var keys = planned.generateKeys(backend, backend.preset(PRESET), poly.embeddings().rows(),
                    Math.max(info.hiddenSize(), info.intermediateSize()), true)) {
                var withPlan = planned.evaluate(keys, loaded, planned.encrypt(keys, loaded.model(), inputs.get(0)),
                        cal, step -> { });
                EncryptedInference greedy = planned.greedy();
                var withoutPlan = greedy.evaluate(keys, loaded, greedy.encrypt(keys, loaded.model(), inputs.get(0)),
                        cal, step -> { });

                assertNotNull(withPlan.planned(), "a run that bootstraps is planned");
                long plannedCalls = withPlan.accounting().countsByPrimitive().get(PrimitiveKind.BOOTSTRAP);
                long greedyCalls = withoutPlan.accounting().countsByPrimitive().get(PrimitiveKind.BOOTSTRAP);
                String what = withPlan.planned().describe() + "; greedy run: " + greedyCalls;
                assertEquals(withPlan.planned().bootstraps(), plannedCalls, "the run does what was planned: " + what);
                assertEquals(withoutPlan.planned().greedyBootstraps(), greedyCalls, what);
                assertTrue(plannedCalls <= greedyCalls, what);
                for (var result : List.of(withPlan, withoutPlan)) {
                    Matrix out = planned.decrypt(keys, result.output().logits());
                    OutputAgreement a = OutputAgreement.between(out, poly.logits());
                    assertTrue(a.mse() <= 1e-4 && a.maxAbs() <= 0.01 && a.samePrediction(),
                            "mse " + a.mse() + ", max " + a.maxAbs() + ": " + what);
                }
            }
        }
    }

    @Test
    void explainPlanPrintsWhereAndWhyWithoutKeys() throws Exception {
        var r = polyhe("bench", "layer", "--shape", "tiny", "--tokens", "4", "--layers", "2", "--preset", PRESET,
                "--explain-plan");
        assertEquals(0, r.code(), r.err() + r.out());
        assertTrue(r.err().contains("planning (no keys, no arithmetic)"), r.err());
        Matcher total = Pattern.compile("(\\d+) bootstrap calls in all").matcher(r.out());
        assertTrue(total.find() && Integer.parseInt(total.group(1)) > 0, r.out());
        assertTrue(r.out().matches("(?s).*layers\\.1\\.mlp/gelu\\s+\\d+\\s+\\d+.*"), "a row per operator: " + r.out());
        assertTrue(r.out().contains("needs ") && r.out().contains(", at level "), "and why: " + r.out());
        assertTrue(r.out().contains("bootstrap plan: "), r.out());
        assertTrue(!r.out().contains("block 0:") && !r.out().contains("vs poly"), "nothing ran: " + r.out());

        var j = polyhe("bench", "layer", "--shape", "tiny", "--tokens", "4", "--layers", "2", "--preset", PRESET,
                "--explain-plan", "--format", "json");
        assertEquals(0, j.code(), j.err() + j.out());
        var plan = new com.fasterxml.jackson.databind.ObjectMapper().readTree(j.out()).get("plans").get(0);
        assertEquals(Integer.parseInt(total.group(1)), plan.get("bootstraps").asInt(), j.out());
        assertTrue(plan.get("bootstraps").asInt() <= plan.get("greedy_bootstraps").asInt(), j.out());
    }
}
