package dev.polyhe.api.arith;

/** A region of accounted work, closed with try-with-resources. */
@FunctionalInterface
public interface OperatorScope extends AutoCloseable {
    OperatorScope NONE = () -> {};

    @Override
    void close();
}
