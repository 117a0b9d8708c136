package dev.polyhe.server;

/** A request that fails with an HTTP status and a message for the JSON body ({@code {"error": ..., "status": ...}}). */
public final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final transient Integer retryAfterSeconds;

    public HttpError(int status, String message) {
        this(status, message, null);
    }

    HttpError(int status, String message, Integer retryAfterSeconds) {
        super(message);
        this.status = status;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public int status() {
        return status;
    }

    /** Seconds for a Retry-After header (a full queue), or null. */
    Integer retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
