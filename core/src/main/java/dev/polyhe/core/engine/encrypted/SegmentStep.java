package dev.polyhe.core.engine.encrypted;

/**
 * A move left by a number of segments of P slots, split as the keys of {@link Packing#babyGiantSteps} rotate it: a
 * giant step (a multiple of the baby step b) and a baby step below b, both in segments.
 */
record SegmentStep(int giant, int baby) {
    /** The move by {@code n} segments (taken modulo {@code segments}; negative n moves right). */
    static SegmentStep of(int n, int segments) {
        int m = Math.floorMod(n, segments);
        int baby = m % Packing.babyStep(segments);
        return new SegmentStep(m - baby, baby);
    }
}
