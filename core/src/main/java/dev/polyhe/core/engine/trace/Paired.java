package dev.polyhe.core.engine.trace;

/**
 * One value computed twice, by the reference engine and by the engine under test, with the precision of the traced
 * value against the reference when it was made (bits, see {@link ErrorTrace}) and the magnitude that precision is
 * relative to.
 */
public record Paired<R, T>(R reference, T traced, double bits, double magnitude) {}
