package dev.polyhe.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.bench.RandomCheckpoint.Architecture;
import dev.polyhe.core.bench.RandomCheckpoint.Init;
import dev.polyhe.core.bench.RandomCheckpoint.Shape;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.engine.encrypted.PrimitiveKind;
import dev.polyhe.core.engine.encrypted.WeightCache;
import dev.polyhe.core.report.LatencyBreakdown;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A served model's second query on a key set finds every weight diagonal the first one encoded, and answers bit for
 * bit the same; within a small budget only the first share is kept.
 */
class WeightCacheTest {
    @TempDir
    Path dir;

    @Test
    void theSecondQueryEncodesNoWeightAndAnswersTheSame() throws Exception {
        Shape shape = new Shape("gpt_neox", 16, 2, 48, 64, 1, 0.25);
        try (PolyHe polyhe = PolyHe.builder().build()) {
            GeneratedQuery q =
                    GeneratedQuery.write(polyhe, dir.resolve("m"), Architecture.GPT_NEOX, shape, Init.HF, 3, 21);
            EncryptedInference served = new EncryptedInference(q.service()).keepWeights(256L << 20);
            try (var keys = q.keys(served)) {
                EncryptedTensor input =
                        served.encrypt(keys, q.loaded().model(), q.inputs().get(0));
                var first = served.evaluate(keys, q.loaded(), input, q.calibration(), step -> {});
                var second = served.evaluate(keys, q.loaded(), input, q.calibration(), step -> {});
                WeightCache.Stats a = first.accounting().weightCache();
                WeightCache.Stats b = second.accounting().weightCache();
                long lookups = a.hits() + a.misses();
                assertTrue(a.misses() > 0, "the model multiplies by plaintext weights");
                assertEquals(a.misses(), b.entries(), "every distinct diagonal encoded once, all under budget");
                assertEquals(lookups, b.hits() + b.misses(), "the same products, query after query");
                assertEquals(0, b.misses(), "every weight product of the second query is found");
                long encodesBefore = first.accounting().countsByPrimitive().get(PrimitiveKind.ENCODE);
                long encodesAfter = second.accounting().countsByPrimitive().getOrDefault(PrimitiveKind.ENCODE, 0L);
                assertEquals(encodesBefore - a.misses(), encodesAfter, "the encodes left are not weights");
                Matrix x = served.decrypt(keys, first.output().logits());
                Matrix y = served.decrypt(keys, second.output().logits());
                assertArrayEquals(x.data(), y.data(), "a held plaintext is the one encoding gives");
                String text = new LatencyBreakdown(second.accounting(), second.seconds()).toText();
                assertTrue(text.contains("Weight cache: " + lookups + " of " + lookups + " weight products"), text);

                // a budget of a few plaintexts keeps the first few; the others are encoded every time
                long perPlaintext = b.bytes() / b.entries();
                EncryptedInference small = new EncryptedInference(q.service()).keepWeights(3 * perPlaintext);
                small.evaluate(keys, q.loaded(), input, q.calibration(), step -> {});
                WeightCache.Stats c = small.evaluate(keys, q.loaded(), input, q.calibration(), step -> {})
                        .accounting()
                        .weightCache();
                assertTrue(c.entries() >= 1 && c.entries() < b.entries() && c.bytes() <= c.budgetBytes(), c.toString());
                assertTrue(c.hits() >= c.entries() && c.misses() > 0, c.toString());
                assertEquals(lookups, c.hits() + c.misses(), c.toString());
            }
        }
    }
}
