package dev.polyhe.core.config;

/** A config that cannot be used; the message names the source, the key path, the bad value and what is allowed. */
public class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
