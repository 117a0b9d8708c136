package dev.polyhe.batch;

import java.io.Serializable;

/**
 * What every task of a batch shares: the served model folder, its approximation domains, the server's security
 * policy, how often a failed query is tried again, and the engine's threads per executor (0: the backend's
 * default).
 */
record BatchSettings(String model, String calibration, boolean acceptInsecure, int retries, int threads)
        implements Serializable {
}
