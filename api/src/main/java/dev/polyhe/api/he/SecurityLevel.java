package dev.polyhe.api.he;

/**
 * The security a parameter set must reach. {@link #INSECURE_TEST} is the explicit, by-name opt-in for small
 * rings in tests; nothing else below 128 bits is accepted.
 */
public enum SecurityLevel {
    /** 128-bit classical security per the Homomorphic Encryption Security Standard (ternary secret). */
    HES_128("128"),
    /** No security: small rings for tests only. */
    INSECURE_TEST("insecure-test");

    private final String configName;

    SecurityLevel(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    public static SecurityLevel fromConfig(String name) {
        for (SecurityLevel s : values()) {
            if (s.configName.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("security '" + name + "' is unknown; allowed: 128, insecure-test");
    }
}
