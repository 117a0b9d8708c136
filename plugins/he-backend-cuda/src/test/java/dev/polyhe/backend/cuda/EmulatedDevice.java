package dev.polyhe.backend.cuda;

import dev.polyhe.ckks.ring.Modulus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A device in Java for the tests: memory is word arrays, and each kernel of ring_kernels.cu is replaced by what it
 * computes, in exact modular arithmetic (the kernels' lazy reductions end in the same canonical residues, which the
 * host emulation of the CUDA bodies checks separately). So the executor above the kernels (launch sequences, grid
 * sizes, pointer offsets, the uploaded tables and the memory pool) runs here as it will on a GPU, and its limbs can be
 * compared with the Java executor's. Launches check that they stay inside their allocations, and shared-memory
 * launches that their grid covers the ring and fits a block's shared memory. Every call is counted
 * ({@link DeviceCounts}): the budgets of LaunchBudgetTest.
 *
 * <p>Streams are modelled as a GPU runs them, not as the host issues to them: each is a queue of pending work that
 * runs only when the host needs it (a download runs its stream, {@link #synchronize()} and {@link #free} run all),
 * and then in an order that respects only each stream's order and the event waits: the work a download needs is
 * pulled in as late as possible (a writer another stream forgot to wait for has not run yet), with work of other
 * streams slipped in at seeded random points ({@value #SEED_PROPERTY}). Every access is checked against vector clocks
 * (a race detector): a read or write of an allocation whose last write, or a write of one whose reads, happened on
 * another stream at a point this stream has not waited for (an event recorded after it) fails with a
 * {@link StreamRaceException}, whatever the interleaving.
 *
 * <p>A device that only counts ({@link #countingOnly}) keeps no memory and runs no kernel: the executor's calls on
 * rings too large to emulate (N = 2^16) are counted as they would be made.
 */
final class EmulatedDevice implements DeviceApi {
    /** A block's shared memory, as the GPUs ckks-cuda runs on allow without opting in. */
    static final int SHARED_BYTES = 48 << 10;

    /** By handle (handles count up from 1); null once freed. */
    private volatile long[][] memory = new long[64][];

    private final AtomicLong handles = new AtomicLong();
    private final Map<Long, Modulus> moduli = new ConcurrentHashMap<>();
    /** One context's constants table serves all its launches: moduli by prime index. */
    private final Modulus[] byPrime = new Modulus[256];

    private final long capacity;
    private final boolean compute;
    private final AtomicLong used = new AtomicLong();
    private final Map<Long, Long> sizes = new ConcurrentHashMap<>();
    private final DeviceCounts counts = new DeviceCounts();

    /** System property: the seed of the interleaving of streams (42 by default). */
    static final String SEED_PROPERTY = "polyhe.cuda.emulator.seed";
    /** Streams a device holds, the legacy default stream (0) included. */
    static final int MAX_STREAMS = 17;

    private final List<Stream> streams = new ArrayList<>(List.of(new Stream(0)));
    private int eventCount;
    /** By event handle: the record item it marks now (a wait waits for the record it saw when it was queued). */
    private final Map<Long, Item> lastRecords = new HashMap<>();
    /** What the host knows done (from its downloads and synchronizations): work queued later is ordered after it. */
    private long[] hostClock = new long[MAX_STREAMS];

    private final Random interleaving = new Random(Long.getLong(SEED_PROPERTY, 42));
    /** Per allocation, the race detector's state. */
    private Access[] access = new Access[64];
    /** The item running now and a number of its own (accesses are checked once per item and allocation). */
    private Item running;

    private long runs;

    /** @param capacity bytes the device holds: allocations beyond return {@link #OUT_OF_MEMORY} */
    EmulatedDevice(long capacity) {
        this(capacity, true);
    }

    private EmulatedDevice(long capacity, boolean compute) {
        this.capacity = capacity;
        this.compute = compute;
    }

    /** A device of {@code capacity} bytes that counts the calls made to it and computes nothing. */
    static EmulatedDevice countingOnly(long capacity) {
        return new EmulatedDevice(capacity, false);
    }

    @Override
    public DeviceCounts counts() {
        return counts;
    }

    @Override
    public String name() {
        return "emulated device";
    }

    @Override
    public String driverVersion() {
        return "none";
    }

    @Override
    public String computeCapability() {
        return "emulated";
    }

    @Override
    public long totalMemory() {
        return capacity;
    }

    @Override
    public long[] memoryInfo() {
        return new long[] {capacity - used.get(), capacity};
    }

    /** Threads the context is current on: the driver refuses a call from any other (CUDA_ERROR_INVALID_CONTEXT). */
    private final ThreadLocal<Boolean> bound = ThreadLocal.withInitial(() -> false);

    @Override
    public void bind() {
        bound.set(true);
    }

    private void requireBound() {
        if (!bound.get()) {
            throw new IllegalStateException("device call from thread "
                    + Thread.currentThread().getName() + " with no current context (bind first)");
        }
    }

    @Override
    public long allocate(long bytes) {
        requireBound();
        counts.allocation();
        if (used.addAndGet(bytes) > capacity) {
            used.addAndGet(-bytes);
            return OUT_OF_MEMORY;
        }
        long h = handles.incrementAndGet();
        sizes.put(h, bytes);
        if (compute) {
            synchronized (this) {
                if (h >= memory.length) {
                    memory = java.util.Arrays.copyOf(memory, (int) Math.max(2 * memory.length, h + 1));
                }
                memory[(int) h] = new long[(int) ((bytes + 7) / 8)];
                if (h >= access.length) {
                    access = Arrays.copyOf(access, memory.length);
                }
                access[(int) h] = new Access();
            }
        }
        return h;
    }

    /** As the driver's free: after all queued work. */
    @Override
    public synchronized void free(long handle) {
        if (compute) {
            runAll();
        }
        Long bytes = sizes.remove(handle);
        if (bytes != null) {
            used.addAndGet(-bytes);
        }
        if (compute) {
            memory[(int) handle] = null;
        }
    }

    /** Refuses a pointer outside every live allocation (the device would read another buffer, or fault). */
    private void live(Ptr p, long bytes) {
        if (p.handle() == 0) {
            return; // NULL: an optional operand the kernel does not read
        }
        Long size = sizes.get(p.handle());
        if (size == null) {
            throw new IllegalStateException("allocation " + p.handle() + " is not live");
        }
        if (p.offset() < 0 || p.offset() + bytes > size) {
            throw new IndexOutOfBoundsException("bytes [" + p.offset() + ", " + (p.offset() + bytes)
                    + ") outside allocation " + p.handle() + " of " + size + " bytes");
        }
    }

    private long[] words(Ptr p) {
        long[] m = memory[(int) p.handle()];
        if (m == null) {
            throw new IllegalStateException("allocation " + p.handle() + " is not live");
        }
        return m;
    }

    private long get(Ptr p, long i) {
        long[] m = words(p);
        Access a = access[(int) p.handle()];
        if (a.readRun != runs) {
            a.readRun = runs;
            read(p.handle(), a);
        }
        return m[checked(p, m, i)];
    }

    private void set(Ptr p, long i, long v) {
        long[] m = words(p);
        Access a = access[(int) p.handle()];
        if (a.writeRun != runs) {
            a.writeRun = runs;
            write(p.handle(), a);
        }
        m[checked(p, m, i)] = v;
    }

    private static int checked(Ptr p, long[] m, long i) {
        long w = (p.offset() >> 3) + i;
        if ((p.offset() & 7) != 0 || w < 0 || w >= m.length) {
            throw new IndexOutOfBoundsException("word " + w + " (byte offset " + p.offset() + ") outside allocation "
                    + p.handle() + " of " + m.length + " words");
        }
        return (int) w;
    }

    private int getInt(Ptr p, long i) {
        long byteOffset = p.offset() + 4 * i;
        long w = byteOffset / 8;
        if (w >= words(p).length) {
            throw new IndexOutOfBoundsException("int " + i + " outside allocation " + p.handle());
        }
        long word = get(new Ptr(p.handle(), 8 * w), 0);
        return (int) (byteOffset % 8 == 0 ? word : word >>> 32); // little endian
    }

    private void setInt(Ptr p, long i, int v) {
        long byteOffset = p.offset() + 4 * i;
        Ptr word = new Ptr(p.handle(), byteOffset & ~7L);
        long w = get(word, 0);
        long shifted = (v & 0xffffffffL) << (8 * (byteOffset & 7));
        long mask = 0xffffffffL << (8 * (byteOffset & 7));
        set(word, 0, (w & ~mask) | shifted);
    }

    @Override
    public synchronized void upload(long stream, Ptr to, long[] src) {
        counts.upload(8L * src.length);
        live(to, 8L * src.length);
        if (!compute) {
            return;
        }
        long[] copy = src.clone(); // the host may reuse its array at once
        queue(stream, "upload", () -> {
            for (int i = 0; i < copy.length; i++) {
                set(to, i, copy[i]);
            }
        });
    }

    @Override
    public synchronized void upload(long stream, Ptr to, int[] src) {
        counts.upload(4L * src.length);
        live(to, 4L * src.length);
        if (!compute) {
            return;
        }
        if (to.offset() % 8 != 0) {
            throw new IllegalStateException("int upload at byte offset " + to.offset());
        }
        int[] copy = src.clone();
        queue(stream, "upload", () -> {
            for (int i = 0; i < copy.length; i += 2) {
                long lo = copy[i] & 0xffffffffL;
                long hi = i + 1 < copy.length ? (long) copy[i + 1] << 32 : 0;
                set(to, i / 2, lo | hi);
            }
        });
    }

    /** Runs what the copy needs (the stream's queue up to it, and what that waits for), then copies. */
    @Override
    public synchronized void download(long stream, long[] to, Ptr from) {
        counts.download();
        live(from, 8L * to.length);
        if (!compute) {
            return;
        }
        Item copy = queue(stream, "download", () -> {
            for (int i = 0; i < to.length; i++) {
                to[i] = get(from, i);
            }
        });
        runUntil(copy);
        hostClock = max(hostClock, copy.stream.clock);
    }

    @Override
    public synchronized void copy(long stream, Ptr to, Ptr from, long bytes) {
        live(to, bytes);
        live(from, bytes);
        if (!compute) {
            return;
        }
        queue(stream, "copy", () -> {
            for (long i = 0; i < bytes / 8; i++) {
                set(to, i, get(from, i));
            }
        });
    }

    @Override
    public synchronized void zero(long stream, Ptr to, long bytes) {
        live(to, bytes);
        if (!compute) {
            return;
        }
        queue(stream, "zero", () -> {
            for (long i = 0; i < bytes / 8; i++) {
                set(to, i, 0);
            }
        });
    }

    @Override
    public synchronized void synchronize() {
        counts.synchronization();
        if (compute) {
            runAll();
        }
    }

    @Override
    public synchronized long createStream() {
        if (streams.size() == MAX_STREAMS) {
            throw new IllegalStateException("the emulated device holds " + MAX_STREAMS + " streams");
        }
        streams.add(new Stream(streams.size()));
        return streams.size() - 1;
    }

    @Override
    public synchronized long createEvent() {
        return ++eventCount;
    }

    @Override
    public synchronized void record(long event, long stream) {
        requireBound();
        counts.eventRecord();
        if (compute) {
            lastRecords.put(event, queue(stream, "record", null));
        }
    }

    /** A wait for an event never recorded waits for nothing, as CUDA's. */
    @Override
    public synchronized void waitEvent(long stream, long event) {
        requireBound();
        counts.streamWait();
        Item record = lastRecords.get(event);
        if (compute && record != null) {
            queue(stream, "wait", null).awaited = record;
        }
    }

    @Override
    public synchronized void close() {
        if (compute) {
            runAll();
        }
        java.util.Arrays.fill(memory, null);
    }

    // ---- streams -------------------------------------------------------------------------------------------

    /** A read or write that no event orders after a conflicting access on another stream. */
    static final class StreamRaceException extends IllegalStateException {
        StreamRaceException(String message) {
            super(message);
        }
    }

    /** One stream: its queue, how much was queued, and its vector clock as its work runs. */
    private static final class Stream {
        final int id;
        final ArrayDeque<Item> pending = new ArrayDeque<>();
        long queued;
        /** Per stream, the last point of it this stream's running work is ordered after (its own: what ran). */
        long[] clock = new long[MAX_STREAMS];

        Stream(int id) {
            this.id = id;
        }
    }

    /** Queued work: a body (a copy, a launch), or an event's record (no body), or a wait for a record. */
    private static final class Item {
        final Stream stream;
        final long point;
        /** What the host knew done when it queued this: done before it. */
        final long[] host;

        final String what;
        final Runnable body;
        Item awaited;
        /** A record's: its stream's clock when it ran. */
        long[] seen;

        boolean done;

        Item(Stream stream, long point, long[] host, String what, Runnable body) {
            this.stream = stream;
            this.what = what;
            this.point = point;
            this.host = host;
            this.body = body;
        }
    }

    /** The race detector's state of one allocation. */
    private static final class Access {
        int writer = -1;
        long written;
        /** Per stream, the point of its last read. */
        final long[] reads = new long[MAX_STREAMS];

        long readRun = -1;
        long writeRun = -1;
    }

    private Stream stream(long handle) {
        if (handle < 0 || handle >= streams.size()) {
            throw new IllegalArgumentException("no stream " + handle);
        }
        return streams.get((int) handle);
    }

    private Item queue(long handle, String what, Runnable body) {
        requireBound();
        Stream st = stream(handle);
        Item item = new Item(st, ++st.queued, hostClock, what, body);
        st.pending.add(item);
        return item;
    }

    private static boolean ready(Item head) {
        return head.awaited == null || head.awaited.done;
    }

    /** Runs the head of a stream's queue: its clock advances, then its body runs under the race detector. */
    private void step(Stream st) {
        Item item = st.pending.poll();
        long[] c = max(st.clock, item.host);
        if (item.awaited != null) {
            c = max(c, item.awaited.seen);
        }
        c[st.id] = item.point;
        st.clock = c;
        if (item.body == null && item.awaited == null) {
            item.seen = c.clone();
        }
        if (item.body != null) {
            running = item;
            runs++;
            try {
                item.body.run();
            } finally {
                running = null;
            }
        }
        item.done = true;
    }

    /** As late as possible, what {@code target} needs; now and then another stream's ready work first. */
    private void runUntil(Item target) {
        while (!target.done) {
            if (streams.size() > 1 && interleaving.nextInt(4) == 0) {
                Stream other = streams.get(interleaving.nextInt(streams.size()));
                Item head = other.pending.peek();
                if (head != null && ready(head)) {
                    step(other);
                    continue;
                }
            }
            Stream need = target.stream;
            Item head = need.pending.peek();
            while (!ready(head)) {
                need = head.awaited.stream; // the record waited for is still queued there
                head = need.pending.peek();
            }
            step(need);
        }
    }

    /** Everything queued, in a random order the streams and waits allow. */
    private void runAll() {
        List<Stream> ready = new ArrayList<>();
        while (true) {
            ready.clear();
            boolean any = false;
            for (Stream st : streams) {
                Item head = st.pending.peek();
                any |= head != null;
                if (head != null && ready(head)) {
                    ready.add(st);
                }
            }
            if (!any) {
                break;
            }
            if (ready.isEmpty()) {
                throw new IllegalStateException("the streams wait for each other: deadlock");
            }
            step(ready.get(interleaving.nextInt(ready.size())));
        }
        long[] all = hostClock;
        for (Stream st : streams) {
            all = max(all, st.clock);
        }
        hostClock = all;
    }

    private static long[] max(long[] a, long[] b) {
        if (a == b) {
            return a.clone();
        }
        long[] m = a.clone();
        for (int i = 0; i < m.length; i++) {
            m[i] = Math.max(m[i], b[i]);
        }
        return m;
    }

    private Stream runningStream(long handle) {
        if (running == null) {
            throw new IllegalStateException("allocation " + handle + " accessed outside the device's queued work");
        }
        return running.stream;
    }

    /** A read must follow the last write, whichever stream made it. */
    private void read(long handle, Access a) {
        Stream st = runningStream(handle);
        ordered(handle, a, st, "reads");
        a.reads[st.id] = Math.max(a.reads[st.id], running.point);
    }

    /** A write must follow the last write and every stream's last read. */
    private void write(long handle, Access a) {
        Stream st = runningStream(handle);
        ordered(handle, a, st, "writes");
        for (int r = 0; r < MAX_STREAMS; r++) {
            if (r != st.id && a.reads[r] > st.clock[r]) {
                throw new StreamRaceException("stream " + st.id + " (" + running.what + ") writes allocation " + handle
                        + ", read on stream "
                        + r + " (its work " + a.reads[r] + ") with no event waited: a buffer reused before its reader");
            }
        }
        a.writer = st.id;
        a.written = running.point;
    }

    private void ordered(long handle, Access a, Stream st, String what) {
        if (a.writer >= 0 && a.writer != st.id && a.written > st.clock[a.writer]) {
            throw new StreamRaceException("stream " + st.id + " (" + running.what + ") " + what + " allocation "
                    + handle + ", written on stream "
                    + a.writer + " (its work " + a.written + ") with no event waited: "
                    + (what.equals("reads")
                            ? "read of a buffer with pending writes on another stream"
                            : "a buffer reused before another stream's write"));
        }
    }

    // ---- the kernels ---------------------------------------------------------------------------------------

    private Modulus modulus(Ptr pc, int prime) {
        Modulus m = byPrime[prime];
        long q = get(pc, 8L * prime);
        if (m == null || m.value() != q) {
            m = moduli.computeIfAbsent(q, Modulus::new);
            byPrime[prime] = m;
        }
        return m;
    }

    private static Ptr p(Object[] a, int i) {
        return (Ptr) a[i];
    }

    private static int n(Object[] a, int i) {
        return (Integer) a[i];
    }

    @Override
    public synchronized void launch(long stream, String kernel, long count, int limbs, Object... a) {
        counts.launch();
        for (Object arg : a) {
            if (arg instanceof Ptr p) {
                live(p, 0);
            }
        }
        if (!compute) {
            return;
        }
        queue(stream, kernel, () -> {
            for (int limb = 0; limb < limbs; limb++) {
                for (long idx = 0; idx < count; idx++) {
                    run(kernel, limb, idx, a);
                }
            }
        });
    }

    /**
     * The NTT phases (a, primes, pc, twiddles, twiddlesShoup, logN, s0, k, logTiles) and the FFT's (values, twRe,
     * twIm, logSize, s0, k, logTiles): the grid must cover the limb (the values) in tiles that fit the block's shared
     * memory; the stages [s0, s0 + k) are then done exactly, stage by stage.
     */
    @Override
    public synchronized void launchBlocks(
            long stream, String kernel, int blocks, int limbs, int threads, int sharedBytes, Object... a) {
        counts.launch();
        boolean fft = kernel.equals("fft_inv_phase");
        int first = fft ? 3 : 5;
        int logN = n(a, first);
        int s0 = n(a, first + 1);
        int k = n(a, first + 2);
        int logTiles = n(a, first + 3);
        long elems = 1L << (k + logTiles);
        long perElement = fft ? 16 : 8; // a complex double, or a residue
        if ((long) blocks * elems != 1L << logN
                || sharedBytes != perElement * elems
                || sharedBytes > SHARED_BYTES
                || threads < 1
                || threads > 1024
                || k < 1
                || s0 < 0
                || s0 + k > logN) {
            throw new IllegalArgumentException(kernel + ": " + blocks + " blocks of " + threads + " threads, "
                    + sharedBytes + " bytes shared, stages [" + s0 + ", " + (s0 + k) + ") of " + logN + ", 2^"
                    + logTiles
                    + " tiles a block: not a cover of the ring that fits a block");
        }
        live(p(a, 0), perElement * limbs << logN);
        if (!compute) {
            return;
        }
        queue(stream, kernel, () -> phases(kernel, fft, limbs, logN, s0, k, a));
    }

    private void phases(String kernel, boolean fft, int limbs, int logN, int s0, int k, Object[] a) {
        if (fft) {
            for (int stage = s0; stage < s0 + k; stage++) {
                fftInverseStage(p(a, 0), p(a, 1), p(a, 2), logN, stage);
            }
            return;
        }
        for (int limb = 0; limb < limbs; limb++) {
            for (int stage = s0; stage < s0 + k; stage++) {
                for (long b = 0; b < 1L << (logN - 1); b++) {
                    switch (kernel) {
                        case "ntt_fwd_phase" -> nttForward(limb, b, p(a, 0), p(a, 1), p(a, 2), p(a, 3), logN, stage);
                        case "ntt_inv_phase" -> nttInverse(limb, b, p(a, 0), p(a, 1), p(a, 2), p(a, 3), logN, stage);
                        default -> throw new IllegalArgumentException("no shared-memory kernel " + kernel);
                    }
                }
            }
        }
    }

    private void run(String kernel, int limb, long c, Object[] a) {
        switch (kernel) {
            case "poly_add", "poly_sub", "poly_mul" -> {
                int size = n(a, 5);
                Modulus m = modulus(p(a, 4), getInt(p(a, 3), limb));
                long o = (long) limb * size + c;
                long x = get(p(a, 1), o);
                long y = get(p(a, 2), o);
                set(
                        p(a, 0),
                        o,
                        kernel.equals("poly_add")
                                ? m.add(x, y)
                                : kernel.equals("poly_sub") ? m.sub(x, y) : m.mul(x, y));
            }
            case "poly_neg" -> {
                long o = (long) limb * n(a, 4) + c;
                set(p(a, 0), o, modulus(p(a, 3), getInt(p(a, 2), limb)).neg(get(p(a, 1), o)));
            }
            case "poly_add_into" -> {
                long o = (long) limb * n(a, 4) + c;
                set(p(a, 0), o, modulus(p(a, 3), getInt(p(a, 2), limb)).add(get(p(a, 0), o), get(p(a, 1), o)));
            }
            case "poly_mul_scalar_v", "poly_add_scalar_v" -> {
                long[] s = (long[]) a[2];
                if (s.length != 2 * CudaRingExecutor.SCALAR_LIMBS) {
                    throw new IllegalArgumentException(kernel + ": a PheScalars of " + s.length + " words");
                }
                long o = (long) limb * n(a, 5) + c;
                Modulus m = modulus(p(a, 4), getInt(p(a, 3), limb));
                long x = get(p(a, 1), o);
                set(p(a, 0), o, kernel.equals("poly_mul_scalar_v") ? m.mul(x, s[limb]) : m.add(x, s[limb]));
            }
            case "poly_sub_mul_scalar" -> {
                long o = (long) limb * n(a, 7) + c;
                Modulus m = modulus(p(a, 6), getInt(p(a, 5), limb));
                set(p(a, 0), o, m.mul(m.sub(get(p(a, 1), o), get(p(a, 2), o)), get(p(a, 3), limb)));
            }
            case "poly_tensor" -> {
                long o = (long) limb * n(a, 9) + c;
                Modulus m = modulus(p(a, 8), getInt(p(a, 7), limb));
                long a0 = get(p(a, 3), o);
                long a1 = get(p(a, 4), o);
                long b0 = get(p(a, 5), o);
                long b1 = get(p(a, 6), o);
                set(p(a, 0), o, m.mul(a0, b0));
                set(p(a, 1), o, m.add(m.mul(a0, b1), m.mul(a1, b0)));
                set(p(a, 2), o, m.mul(a1, b1));
            }
            case "automorphism_ntt" -> {
                long base = (long) limb * n(a, 3);
                set(p(a, 0), base + c, get(p(a, 1), base + getInt(p(a, 2), c)));
            }
            case "bconv_scale" -> {
                long o = (long) limb * n(a, 6) + c;
                Modulus m = modulus(p(a, 5), getInt(p(a, 4), limb));
                long y = m.mul(get(p(a, 1), o), get(p(a, 2), limb));
                set(p(a, 0), o, y > m.value() / 2 ? y - m.value() : y);
            }
            case "bconv_accumulate" -> {
                int sources = n(a, 2);
                int size = n(a, 7);
                Modulus m = modulus(p(a, 6), getInt(p(a, 5), limb));
                long acc = 0;
                for (int s = 0; s < sources; s++) {
                    long y = m.reduceSigned(get(p(a, 1), (long) s * size + c));
                    acc = m.add(acc, m.mul(y, get(p(a, 3), (long) limb * sources + s)));
                }
                set(p(a, 0), (long) limb * size + c, acc);
            }
            case "rescale_lift" -> {
                Modulus last = modulus(p(a, 4), n(a, 2));
                Modulus m = modulus(p(a, 4), getInt(p(a, 3), limb));
                long h = last.value() >>> 1;
                long v = get(p(a, 1), c) + h;
                v = v >= last.value() ? v - last.value() : v;
                set(p(a, 0), (long) limb * n(a, 5) + c, m.sub(m.reduce(v), m.reduce(h)));
            }
            case "centred_lift" -> {
                Modulus from = modulus(p(a, 4), n(a, 2));
                Modulus m = modulus(p(a, 4), getInt(p(a, 3), limb));
                long v = get(p(a, 1), c);
                set(
                        p(a, 0),
                        (long) limb * n(a, 5) + c,
                        v > from.value() / 2 ? m.neg(m.reduce(from.value() - v)) : m.reduce(v));
            }
            case "modup_convert" -> {
                int size = n(a, 9);
                int start = getInt(p(a, 3), 3L * limb);
                int sources = getInt(p(a, 3), 3L * limb + 1);
                long o = (long) limb * size + c;
                if (sources == 0) {
                    set(p(a, 0), o, get(p(a, 1), (long) start * size + c));
                    return;
                }
                int row = getInt(p(a, 3), 3L * limb + 2);
                Modulus m = modulus(p(a, 8), getInt(p(a, 6), limb % n(a, 7)));
                long acc = 0;
                for (int s = 0; s < sources; s++) {
                    long y = m.reduceSigned(get(p(a, 2), (long) (start + s) * size + c));
                    acc = m.add(acc, m.mul(y, get(p(a, 4), row + s)));
                }
                set(p(a, 0), o, acc);
            }
            case "poly_mul_pair" -> {
                int size = n(a, 9);
                long o = (long) limb * size + c;
                Modulus m = modulus(p(a, 8), getInt(p(a, 7), limb));
                long b = get(p(a, 4), o);
                for (int v = 0; v < 2; v++) {
                    long prod = m.mul(get(p(a, 2 + v), o), b);
                    Ptr s = p(a, 5 + v);
                    set(p(a, v), o, s.handle() == 0 ? prod : m.add(get(s, o), prod));
                }
            }
            case "keyswitch_permuted_sum", "baby_step" -> {
                boolean baby = kernel.equals("baby_step");
                int size = n(a, baby ? 14 : 12);
                int prime = getInt(p(a, 7), limb);
                Modulus m = modulus(p(a, baby ? 13 : 11), prime);
                long src = getInt(p(a, 8), c);
                long[] s = dot(a, limb, src, prime, m, size);
                long s0 = s[0];
                long s1 = s[1];
                long o = (long) limb * size + c;
                if (baby) {
                    if (limb <= n(a, 12)) {
                        s0 = m.add(s0, m.mul(get(p(a, 9), (long) limb * size + src), get(p(a, 10), limb)));
                    }
                    set(p(a, 0), o, s0);
                    set(p(a, 1), o, s1);
                    return;
                }
                Ptr add0 = p(a, 10);
                if (add0.handle() != 0) {
                    s0 = m.add(s0, get(add0, (long) limb * size + src));
                }
                boolean first = n(a, 9) != 0;
                set(p(a, 0), o, first ? s0 : m.add(get(p(a, 0), o), s0));
                set(p(a, 1), o, first ? s1 : m.add(get(p(a, 1), o), s1));
            }
            case "encode_slots" -> {
                int size = n(a, 6);
                Modulus m = modulus(p(a, 5), getInt(p(a, 4), limb));
                int logSlots = n(a, 2);
                int half = size / 2;
                int gap = half >> logSlots;
                long at = c < half ? c : c - half;
                long r = 0;
                if (at % gap == 0) {
                    int i = (int) (at / gap);
                    int from = logSlots == 0 ? 0 : Integer.reverse(i) >>> (32 - logSlots);
                    double v = Double.longBitsToDouble(get(p(a, 1), (c < half ? 0 : 1L << logSlots) + from));
                    r = m.reduceSigned((long) Math.rint(v * Double.longBitsToDouble(((long[]) a[3])[0])));
                }
                set(p(a, 0), (long) limb * size + c, r);
            }
            case "encode_coefficients" -> {
                Modulus m = modulus(p(a, 3), getInt(p(a, 2), limb));
                set(p(a, 0), (long) limb * n(a, 4) + c, m.reduceSigned(get(p(a, 1), c)));
            }
            case "baby_identity" -> {
                int size = n(a, 9);
                long o = (long) limb * size + c;
                if (limb > n(a, 6)) {
                    set(p(a, 0), o, 0);
                    set(p(a, 1), o, 0);
                    return;
                }
                Modulus m = modulus(p(a, 8), getInt(p(a, 7), limb));
                long w = get(p(a, 4), limb);
                set(p(a, 0), o, m.mul(get(p(a, 2), o), w));
                set(p(a, 1), o, m.mul(get(p(a, 3), o), w));
            }
            case "diagonal_accumulate" -> {
                int size = n(a, 8);
                long o = (long) limb * size + c;
                Modulus m = modulus(p(a, 7), getInt(p(a, 6), limb));
                long diagonal = get(p(a, 4), o);
                boolean first = n(a, 5) != 0;
                for (int v = 0; v < 2; v++) {
                    long r = m.mulMont(get(p(a, 2 + v), o), diagonal);
                    set(p(a, v), o, first ? r : m.add(get(p(a, v), o), r));
                }
            }
            case "moddown_rescale_add_pd" -> {
                Modulus m = modulus(p(a, 4), n(a, 3));
                set(p(a, 0), c, m.add(get(p(a, 0), c), m.mul(get(p(a, 1), c), get(p(a, 2), 0))));
            }
            case "moddown_rescale_excess" -> {
                int sources = n(a, 2);
                int size = n(a, 4);
                double f = 0;
                for (int t = 0; t < sources; t++) {
                    f += get(p(a, 1), (long) t * size + c) * Double.longBitsToDouble(get(p(a, 3), t));
                }
                setInt(p(a, 0), c, (int) Math.rint(f));
            }
            case "bconv_accumulate_excess" -> {
                int sources = n(a, 2);
                int offset = n(a, 8);
                int size = n(a, 10);
                Modulus m = modulus(p(a, 9), getInt(p(a, 5), limb));
                long acc = 0;
                for (int s = 0; s < sources; s++) {
                    long y = m.reduceSigned(get(p(a, 1), (long) s * size + c));
                    acc = m.add(acc, m.mul(y, get(p(a, 3), (long) limb * sources + s)));
                }
                int u = getInt(p(a, 6), c);
                set(
                        p(a, 0),
                        (long) limb * size + c,
                        m.add(acc, get(p(a, 7), (long) limb * (2 * offset + 1) + u + offset)));
            }
            case "moddown_rescale_combine" -> {
                int size = n(a, 10);
                long o = (long) limb * size + c;
                Modulus m = modulus(p(a, 9), getInt(p(a, 8), limb));
                long r = m.mul(m.sub(get(p(a, 1), o), get(p(a, 2), o)), get(p(a, 4), limb));
                Ptr d = p(a, 3);
                set(p(a, 0), o, d.handle() == 0 ? r : m.add(r, m.mul(get(d, o), get(p(a, 6), limb))));
            }
            case "keyswitch_inner_product" -> {
                int digits = n(a, 3);
                int width = n(a, 4);
                int primes = n(a, 6);
                int size = n(a, 9);
                int prime = getInt(p(a, 7), limb);
                Modulus m = modulus(p(a, 8), prime);
                long s0 = 0;
                long s1 = 0;
                for (int j = 0; j < digits; j++) {
                    long x = get(p(a, 2), ((long) j * width + limb) * size + c);
                    s0 = m.add(s0, m.mulMont(x, get(p(a, 5), (((long) j * 2) * primes + prime) * size + c)));
                    s1 = m.add(s1, m.mulMont(x, get(p(a, 5), (((long) j * 2 + 1) * primes + prime) * size + c)));
                }
                set(p(a, 0), (long) limb * size + c, s0);
                set(p(a, 1), (long) limb * size + c, s1);
            }
            default -> throw new IllegalArgumentException("no kernel " + kernel);
        }
    }

    /** SpecialFft.inverseBitReversed's stage of length size >> stage on {re[size], im[size]}, as Java computes it. */
    private void fftInverseStage(Ptr values, Ptr twRe, Ptr twIm, int logSize, int stage) {
        int size = 1 << logSize;
        int len = size >> stage;
        int half = len >> 1;
        for (int i = 0; i < size; i += len) {
            for (int j = 0; j < half; j++) {
                int x = i + j;
                int y = x + half;
                double wr = Double.longBitsToDouble(get(twRe, half - 1 + j));
                double wi = -Double.longBitsToDouble(get(twIm, half - 1 + j));
                double ar = Double.longBitsToDouble(get(values, x));
                double ai = Double.longBitsToDouble(get(values, size + x));
                double br = Double.longBitsToDouble(get(values, y));
                double bi = Double.longBitsToDouble(get(values, size + y));
                double dr = ar - br;
                double di = ai - bi;
                set(values, x, Double.doubleToRawLongBits(ar + br));
                set(values, size + x, Double.doubleToRawLongBits(ai + bi));
                set(values, y, Double.doubleToRawLongBits(dr * wr - di * wi));
                set(values, size + y, Double.doubleToRawLongBits(dr * wi + di * wr));
            }
        }
    }

    /**
     * Σ_j D_j·key_j at coefficient src of limb position {@code limb}, both parts, for the kernels whose arguments begin
     * (acc0, acc1, digits, numDigits, width, key, numPrimes, primes, ...).
     */
    private long[] dot(Object[] a, int limb, long src, int prime, Modulus m, int size) {
        int digits = n(a, 3);
        int width = n(a, 4);
        int primes = n(a, 6);
        long s0 = 0;
        long s1 = 0;
        for (int j = 0; j < digits; j++) {
            long x = get(p(a, 2), ((long) j * width + limb) * size + src);
            s0 = m.add(s0, m.mulMont(x, get(p(a, 5), (((long) j * 2) * primes + prime) * size + src)));
            s1 = m.add(s1, m.mulMont(x, get(p(a, 5), (((long) j * 2 + 1) * primes + prime) * size + src)));
        }
        return new long[] {s0, s1};
    }

    /** (a, primes, pc, psiRev, psiRevShoup, logN, stage): the butterfly b of stage {@code stage}, exactly. */
    private void nttForward(int limb, long b, Ptr a, Ptr primes, Ptr pc, Ptr psiRev, int logN, int stage) {
        int prime = getInt(primes, limb);
        Modulus m = modulus(pc, prime);
        long size = 1L << logN;
        int logT = logN - 1 - stage;
        long t = 1L << logT;
        long i = b >> logT;
        long j = b & (t - 1);
        long w = get(psiRev, prime * size + (1L << stage) + i);
        long lo = limb * size + 2 * i * t + j;
        long x = get(a, lo);
        long v = m.mul(get(a, lo + t), w);
        set(a, lo, m.add(x, v));
        set(a, lo + t, m.sub(x, v));
    }

    /** (a, primes, pc, psiInvRev, psiInvRevShoup, logN, stage); the last stage folds in N^-1 as the kernel does. */
    private void nttInverse(int limb, long b, Ptr a, Ptr primes, Ptr pc, Ptr psiInvRev, int logN, int stage) {
        int prime = getInt(primes, limb);
        Modulus m = modulus(pc, prime);
        long size = 1L << logN;
        long t = 1L << stage;
        long i = b >> stage;
        long j = b & (t - 1);
        long lo = limb * size + 2 * i * t + j;
        long x = get(a, lo);
        long y = get(a, lo + t);
        if (stage < logN - 1) {
            long w = get(psiInvRev, prime * size + (size >> (stage + 1)) + i);
            set(a, lo, m.add(x, y));
            set(a, lo + t, m.mul(m.sub(x, y), w));
        } else {
            set(a, lo, m.mul(m.add(x, y), get(pc, 8L * prime + 4)));
            set(a, lo + t, m.mul(m.sub(x, y), get(pc, 8L * prime + 6)));
        }
    }
}
