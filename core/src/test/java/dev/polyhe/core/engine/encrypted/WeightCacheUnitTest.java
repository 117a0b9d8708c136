package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.polyhe.api.he.Plaintext;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Weights are found by content, level and scale; admission stops at the budget; nothing held is evicted. */
class WeightCacheUnitTest {
    private final AtomicInteger encodes = new AtomicInteger();

    private Plaintext encode(int level) {
        encodes.incrementAndGet();
        return new Plaintext() {
            @Override
            public int level() {
                return level;
            }

            @Override
            public double scale() {
                return 1;
            }

            @Override
            public int slots() {
                return 4;
            }

            @Override
            public String parameterHash() {
                return "p";
            }
        };
    }

    @Test
    void foundByContentNotByArray() {
        WeightCache cache = new WeightCache(1 << 20, 1024);
        double[] w = {1, 2, 3, 4};
        Plaintext first = cache.get(w, 4, 2, 0x1p40, () -> encode(2));
        w[0] = 9; // the caller reuses its array: what is held is a copy
        assertSame(first, cache.get(new double[] {1, 2, 3, 4}, 4, 2, 0x1p40, () -> encode(2)));
        assertNotSame(first, cache.get(new double[] {1, 2, 3, 4}, 4, 1, 0x1p40, () -> encode(1)), "another level");
        assertNotSame(first, cache.get(new double[] {1, 2, 3, 4}, 4, 2, 0x1p41, () -> encode(2)), "another scale");
        assertNotSame(first, cache.get(w, 4, 2, 0x1p40, () -> encode(2)), "other values");
        assertEquals(4, encodes.get());
        var s = cache.stats();
        assertEquals(1, s.hits());
        assertEquals(4, s.misses());
        assertEquals(4, s.entries());
        assertEquals((3 + 2 + 3 + 3) * 1024 + 4 * 32, s.bytes(), "limbs, plus the values kept as the key");
    }

    @Test
    void admissionStopsAtTheBudgetAndKeepsTheFirst() {
        WeightCache cache = new WeightCache(2 * (3 * 1024 + 32), 1024); // two level-2 plaintexts of 4 values
        for (int k = 0; k < 5; k++) {
            cache.get(new double[] {k, 0, 0, 0}, 4, 2, 1, () -> encode(2));
        }
        assertEquals(2, cache.stats().entries());
        encodes.set(0);
        for (int k = 0; k < 5; k++) {
            cache.get(new double[] {k, 0, 0, 0}, 4, 2, 1, () -> encode(2));
        }
        assertEquals(3, encodes.get(), "the first two are held, the other three encoded again");
        assertEquals(2, cache.stats().entries());
    }

    @Test
    void aNegativeBudgetIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new WeightCache(-1, 1024));
    }
}
