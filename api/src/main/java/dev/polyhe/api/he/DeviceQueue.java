package dev.polyhe.api.he;

/**
 * Optional capability of an {@link HeContext} whose operations are queued on a device and may return before the
 * device has done them (a GPU backend). Results are always correct to read: decryption, serialization and every
 * value the host needs wait by themselves. Only a caller that times operations needs {@link #drain()}: {@code
 * polyhe bench ckks} calls it after each timed operation, so that host timings are device timings.
 */
public interface DeviceQueue {
    /** Returns when the device has finished everything queued so far. */
    void drain();
}
