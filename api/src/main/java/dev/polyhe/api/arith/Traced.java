package dev.polyhe.api.arith;

/** A plaintext double with the multiplicative depth that produced it. */
public record Traced(double value, int depth) {
    public static Traced of(double value) {
        return new Traced(value, 0);
    }
}
