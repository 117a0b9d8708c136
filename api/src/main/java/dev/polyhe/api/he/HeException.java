package dev.polyhe.api.he;

/**
 * A misuse the backend caught before doing arithmetic: operands at different levels or scales that cannot
 * be aligned, no levels left, a key from another key set, a corrupted or foreign serialized blob. The
 * message gives both sides of the mismatch.
 */
public class HeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public HeException(String message) {
        super(message);
    }

    public HeException(String message, Throwable cause) {
        super(message, cause);
    }
}
