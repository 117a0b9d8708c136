package dev.polyhe.batch;

import java.io.Serializable;

/**
 * What every task of a batch shares: the served model folder, its approximation domains, the server's security
 * policy, how often a failed query is tried again, the engine's threads per executor (0: the backend's
 * default), and the backend that evaluates (null: the one each query's key set names).
 */
record BatchSettings(String model, String calibration, boolean acceptInsecure, int retries, int threads, String backend)
        implements Serializable {
    /** Where a query made with {@code keySetBackend} evaluates: the server's choice, else the key set's backend. */
    String evaluating(String keySetBackend) {
        return backend != null ? backend : keySetBackend;
    }
}
