package dev.polyhe.core.inference;

/** An input file or input value a model cannot take; the message names the key, the sample and what was expected. */
public final class InvalidInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidInputException(String message) {
        super(message);
    }

    public InvalidInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
