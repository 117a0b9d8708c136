package dev.polyhe.api.he;

/** Parameters below 128-bit security opened without the {@code insecure-test} opt-in. */
public class InsecureParametersException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InsecureParametersException(String message) {
        super(message);
    }
}
