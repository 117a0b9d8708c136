package dev.polyhe.api.model;

/** A checkpoint that cannot be loaded; the message names the file, key or tensor and what was expected. */
public class CheckpointException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CheckpointException(String message) {
        super(message);
    }

    public CheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
