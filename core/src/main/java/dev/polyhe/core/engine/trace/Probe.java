package dev.polyhe.core.engine.trace;

/**
 * What an error trace reads from a traced engine besides its decrypted values: the level and scale of a value and,
 * where the engine tracks it, the magnitude bound it assumes (NaN where it has none).
 */
public interface Probe<T> {
    int level(T value);

    /** log2 of the scale. */
    double logScale(T value);

    /** The bound on |value| the engine assumes (NaN: none). */
    default double bound(T value) {
        return Double.NaN;
    }

    /**
     * Where {@link #bound} came from, in words: {@code calibrated} (a domain the model announced from calibration, or
     * what follows from one pointwise), {@code data} (a plaintext's own values) or {@code interval arithmetic}; null
     * where there is no bound.
     */
    default String boundSource(T value) {
        return null;
    }

    /** The largest imaginary part in any slot (engines on complex slots; NaN: none). */
    default double imaginary(T value) {
        return Double.NaN;
    }

    /** The largest |value| in any slot, padding included: what a bootstrap of it would see (NaN: none). */
    default double slotMagnitude(T value) {
        return Double.NaN;
    }
}
