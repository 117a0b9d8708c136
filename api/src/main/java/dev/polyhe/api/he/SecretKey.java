package dev.polyhe.api.he;

/**
 * The client's secret. Serialized only through {@link HeSerializer#writeSecretKey}; implementations never
 * print it in {@code toString} or logs.
 */
public interface SecretKey extends KeySetMember {}
