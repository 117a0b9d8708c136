package dev.polyhe.backend.cuda;

/**
 * What the executor asks of a device: memory by handle, copies, kernel launches by name. {@link CudaDevice} does it
 * through JCuda's driver API; the tests also run the executor on a device emulated in Java, so that everything above
 * the kernels (the launch sequences, offsets and tables) is checked without a GPU. Launches and copies go to a stream
 * (0: the legacy default stream) and run in the order they were queued there; streams are ordered with each other
 * only by events (a stream waits for the point another had reached when an event was recorded on it), never by the
 * host. {@link #free} and {@link #synchronize()} wait for every stream.
 */
interface DeviceApi extends AutoCloseable {
    /** Returned by {@link #allocate} when the device is out of memory. */
    long OUT_OF_MEMORY = -1;

    /** The legacy default stream: a context with one stream queues everything there and records no event. */
    long DEFAULT_STREAM = 0;

    /** A place in device memory: an allocation and a byte offset into it. */
    record Ptr(long handle, long offset) {
        /** The null pointer, for a kernel's optional operand. */
        static final Ptr NULL = new Ptr(0, 0);

        Ptr plus(long bytes) {
            return bytes == 0 ? this : new Ptr(handle, offset + bytes);
        }
    }

    String name();

    String driverVersion();

    String computeCapability();

    long totalMemory();

    /** {free, total} bytes now. */
    long[] memoryInfo();

    /** Makes the device current for the calling thread. */
    void bind();

    /** A new allocation's handle (never 0), or {@link #OUT_OF_MEMORY}. */
    long allocate(long bytes);

    /** Frees an allocation once every stream's queued work is done (the driver's free waits for the device). */
    void free(long handle);

    /** A new stream that does not synchronize with the legacy default stream (its handle, never 0). */
    long createStream();

    /** A new event (no timing): marks a point of a stream when recorded. */
    long createEvent();

    /** Marks on {@code event} the point {@code stream} has reached (all it has queued so far); replaces older marks. */
    void record(long event, long stream);

    /**
     * Work queued on {@code stream} from now on waits for the point last recorded on {@code event}; the host does not.
     */
    void waitEvent(long stream, long event);

    /** Copies the host's words to the device in {@code stream}'s order (the host may reuse its array at once). */
    void upload(long stream, Ptr to, long[] words);

    void upload(long stream, Ptr to, int[] words);

    /** Waits for {@code stream}'s queued work, then copies: the host reads what the stream wrote. */
    void download(long stream, long[] to, Ptr from);

    void copy(long stream, Ptr to, Ptr from, long bytes);

    void zero(long stream, Ptr to, long bytes);

    /**
     * One launch over {@code count} indices per limb and {@code limbs} limbs; {@code args} are the kernel's parameters
     * in order, each a {@link Ptr}, an {@link Integer} or a {@code long[]} (a structure passed by value: exactly its
     * words, as the kernel declares it).
     */
    void launch(long stream, String kernel, long count, int limbs, Object... args);

    /**
     * One launch of a kernel that works in shared memory: {@code blocks} × {@code limbs} blocks of {@code threads}
     * threads, each with {@code sharedBytes} of dynamic shared memory.
     */
    void launchBlocks(long stream, String kernel, int blocks, int limbs, int threads, int sharedBytes, Object... args);

    /** Waits until the device has done all queued work on every stream (only where the host must wait). */
    void synchronize();

    /** What this device has been asked to do so far. */
    DeviceCounts counts();

    @Override
    void close();
}
