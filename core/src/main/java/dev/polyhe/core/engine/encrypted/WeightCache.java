package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Plaintext;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Encoded weights kept across the runs of one key set, within a byte budget. A plaintext-weight product encodes a
 * weight diagonal at its operand's level and at the scale that makes the product land where the engine wants it:
 * it depends on the weights, the level and the scale, never on the query, so a server's second query of a model
 * finds every diagonal it encoded for the first. Admission stops at the budget, nothing is evicted: a model's queries
 * ask for the same diagonals in the same order each time, where least-recently-used would keep none of a working set
 * larger than the budget and a fixed first share keeps that share. Safe for concurrent runs of the key set.
 */
public final class WeightCache {
    private final long budgetBytes;
    private final long bytesPerLimb;
    private final Map<Key, Plaintext> entries = new ConcurrentHashMap<>();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();

    /** @param bytesPerLimb N·8: a plaintext at level l holds l + 1 limbs of it */
    public WeightCache(long budgetBytes, long bytesPerLimb) {
        if (budgetBytes < 0) {
            throw new IllegalArgumentException("weight cache budget " + budgetBytes + " bytes must be >= 0");
        }
        this.budgetBytes = budgetBytes;
        this.bytesPerLimb = bytesPerLimb;
    }

    /** The values, compared by content; the hash is computed once. */
    private record Key(double[] values, int width, int level, long scaleBits, int hash) {
        static Key of(double[] values, int width, int level, double scale) {
            int h = Arrays.hashCode(values);
            h = 31 * (31 * (31 * h + width) + level) + Double.hashCode(scale);
            return new Key(values, width, level, Double.doubleToLongBits(scale), h);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k
                    && k.hash == hash
                    && k.width == width
                    && k.level == level
                    && k.scaleBits == scaleBits
                    && Arrays.equals(k.values, values);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** The plaintext of these weights at this level and scale: held, else encoded (and held while under budget). */
    Plaintext get(double[] values, int width, int level, double scale, Supplier<Plaintext> encode) {
        Key key = Key.of(values, width, level, scale);
        Plaintext found = entries.get(key);
        if (found != null) {
            hits.incrementAndGet();
            return found;
        }
        misses.incrementAndGet();
        Plaintext p = encode.get();
        long size = (level + 1L) * bytesPerLimb + 8L * values.length;
        if (bytes.addAndGet(size) <= budgetBytes) {
            Key held = new Key(values.clone(), width, level, key.scaleBits(), key.hash());
            if (entries.putIfAbsent(held, p) != null) {
                bytes.addAndGet(-size); // another run put it first
            }
        } else {
            bytes.addAndGet(-size);
        }
        return p;
    }

    public Stats stats() {
        return new Stats(hits.get(), misses.get(), entries.size(), bytes.get(), budgetBytes);
    }

    /** Lookups served ({@code hits}) and encoded ({@code misses}), what is held, and the budget, in bytes. */
    public record Stats(long hits, long misses, long entries, long bytes, long budgetBytes) {
        public Stats minus(Stats before) {
            return new Stats(hits - before.hits, misses - before.misses, entries, bytes, budgetBytes);
        }
    }
}
