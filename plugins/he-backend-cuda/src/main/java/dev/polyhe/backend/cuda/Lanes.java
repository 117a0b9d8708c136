package dev.polyhe.backend.cuda;

import dev.polyhe.backend.cuda.DeviceMemory.Allocation;
import dev.polyhe.backend.cuda.DeviceMemory.Block;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The executor's streams, one per lane, and the order between them. An operation holds a lane from start to end: its
 * thread's own lane (given round robin at its first operation) where that is free, else any free one (its own from
 * then on), else it waits for its own. So operations from several threads are queued at once and run side by side on
 * the device, a thread
 * that calls alone stays on one stream, and with one lane every operation takes turns on it, as before.
 *
 * <p>Order between lanes is the standard one, without the host: each lane counts the points it has passed (its clock,
 * advanced by its holder only); a buffer ({@link Block}) remembers the lane and point of its last write and, per lane,
 * of its last use. An operation that reads a buffer another lane wrote makes its stream wait for an event recorded on
 * that lane at or after the write; a buffer taken from the pool waits so for every other lane's last use (reads
 * included). Events are recorded lazily, once for any number of waiters, and only when a wait needs one, so one thread
 * on one lane records and waits for nothing. Tables and keys uploaded on first use are published: every lane waits
 * once for the upload before it reads them. With one lane everything goes to the legacy default stream, as before.
 */
final class Lanes {
    /** System property: streams of a ckks-cuda context (1 to {@value #MAX}). */
    static final String PROPERTY = "polyhe.cuda.streams";

    static final int DEFAULT = 4;
    static final int MAX = 16;

    private final DeviceApi device;
    private final Lane[] lanes;
    private final AtomicInteger next = new AtomicInteger();
    private final ThreadLocal<Lane> home;
    /** The lane the thread's operation holds now, or null. */
    private final ThreadLocal<Lane> held = new ThreadLocal<>();
    /** Per lane, the point after its latest publication of a shared table. */
    private final AtomicLongArray published;
    /** Bumped by every publication (after its point is set): lanes that have seen the count skip the catch-up. */
    private final AtomicLong publications = new AtomicLong();
    /** Tests only: a read of another lane's buffer skips its wait (the emulated device must then fail). */
    volatile boolean skipReadWaits;
    /**
     * Tests only: each operation takes the next lane in turn, even from one thread, so that every operand comes from
     * another stream and every wait is exercised by single-threaded tests.
     */
    volatile boolean hop;

    private final AtomicInteger hops = new AtomicInteger();

    Lanes(DeviceApi device, int count) {
        if (count < 1 || count > MAX) {
            throw new IllegalArgumentException("ckks-cuda streams: " + count + "; 1 to " + MAX);
        }
        this.device = device;
        this.lanes = new Lane[count];
        for (int i = 0; i < count; i++) {
            lanes[i] = count == 1
                    ? new Lane(i, DeviceApi.DEFAULT_STREAM, 0, count)
                    : new Lane(i, device.createStream(), device.createEvent(), count);
        }
        this.published = new AtomicLongArray(count);
        this.home = ThreadLocal.withInitial(() -> lanes[Math.floorMod(next.getAndIncrement(), lanes.length)]);
    }

    /** The configured number of streams: {@value #PROPERTY} (held to 1..{@value #MAX}), else {@value #DEFAULT}. */
    static int configured() {
        return Math.max(1, Math.min(MAX, Integer.getInteger(PROPERTY, DEFAULT)));
    }

    int count() {
        return lanes.length;
    }

    /** One stream's state: only the thread holding the lane queues on it or advances its clock. */
    static final class Lane {
        final int index;
        final long stream;
        final long event;
        private final ReentrantLock lock = new ReentrantLock();
        /** Points passed; read by other lanes' waits (volatile), advanced by the holder. */
        private volatile long clock;
        /** The clock when the event was last recorded (under {@link #recording}). */
        private long recorded;

        private final Object recording = new Object();
        /** Per lane, the point this lane's stream already waits for. */
        private final long[] seen;

        private long publicationsSeen;
        private int depth;
        /** Buffers the current operation read and wrote: their points are set when it has queued everything. */
        private final ArrayList<Allocation> reads = new ArrayList<>();

        private final ArrayList<Allocation> writes = new ArrayList<>();

        private Lane(int index, long stream, long event, int count) {
            this.index = index;
            this.stream = stream;
            this.event = event;
            this.seen = new long[count];
        }
    }

    /** Starts an operation on a lane (reentrant: a fused form may call the plain ones on the lane it holds). */
    Lane enter() {
        Lane l = held.get();
        if (l != null) {
            l.depth++;
            return l;
        }
        Lane own = hop ? lanes[Math.floorMod(hops.getAndIncrement(), lanes.length)] : home.get();
        if (hop) {
            own.lock.lock();
            l = own;
        } else if (own.lock.tryLock()) {
            l = own;
        } else {
            for (Lane other : lanes) {
                if (other.lock.tryLock()) {
                    l = other;
                    home.set(other); // stays there: two threads that met on one lane part for good
                    break;
                }
            }
            if (l == null) {
                own.lock.lock();
                l = own;
            }
        }
        held.set(l);
        l.depth = 1;
        try {
            catchUp(l);
        } catch (RuntimeException | Error e) {
            exit(l);
            throw e;
        }
        return l;
    }

    /** Ends it: the buffers it used pass the lane's next point, as all their work is queued now. */
    void exit(Lane l) {
        if (--l.depth == 0) {
            long point = ++l.clock;
            for (int i = 0, size = l.reads.size(); i < size; i++) {
                l.reads.get(i).used(l.index, point);
            }
            for (int i = 0, size = l.writes.size(); i < size; i++) {
                l.writes.get(i).written(l.index, point);
            }
            l.reads.clear();
            l.writes.clear();
            held.set(null);
            l.lock.unlock();
        }
    }

    /** The lane the calling thread's operation holds. */
    Lane current() {
        Lane l = held.get();
        if (l == null) {
            throw new IllegalStateException("ckks-cuda: device work outside an operation");
        }
        return l;
    }

    /** The stream of the calling thread's operation. */
    long stream() {
        return current().stream;
    }

    /** Before a read of {@code a}: this lane waits for the lane that wrote it. */
    void read(Allocation a) {
        Lane l = current();
        Block b = a.block;
        int w = b.writer;
        if (w != l.index && !skipReadWaits) {
            waitFor(l, lanes[w], b.written);
        }
        l.reads.add(a);
    }

    /** A buffer from the pool to lane l: it waits for every other lane's last use of it. */
    void reuse(Allocation a) {
        Lane l = current();
        Block b = a.block;
        for (int i = 0; i < lanes.length; i++) {
            if (i != l.index && b.used[i] > 0) {
                waitFor(l, lanes[i], b.used[i]);
            }
        }
        b.writer = l.index; // written here from now on: reads in this operation need no wait
        l.writes.add(a);
    }

    /**
     * Before a write in place of a buffer another operation made ({@code addInto}'s fresh operand): this lane waits for
     * every other lane's last use of it, and is its writer from now on.
     */
    void write(Allocation a) {
        reuse(a);
    }

    /** Marks a buffer written now, in the middle of an operation (a key others may look up before it ends). */
    void wrote(Allocation a) {
        Lane l = current();
        a.written(l.index, ++l.clock);
    }

    /** Whether the calling thread is in an operation (handles are also looked at outside one). */
    boolean held() {
        return held.get() != null;
    }

    /** A temporary back to the pool in the middle of an operation: its uses so far pass a point now. */
    void released(Allocation a) {
        Lane l = current();
        a.used(l.index, ++l.clock);
    }

    /**
     * After an upload of a table every lane reads without tracking it (tables held for the context's lifetime): every
     * other lane waits once for this point before its next read of any table.
     */
    void publish() {
        Lane l = current();
        long point = ++l.clock;
        published.accumulateAndGet(l.index, point, Math::max);
        // the lane's own count stays: it may not have caught up with another lane's publication yet
        publications.incrementAndGet();
    }

    /** After a look-up of a table another lane may have uploaded: waits for the publications not yet seen. */
    void catchUp() {
        catchUp(current());
    }

    private void catchUp(Lane l) {
        long now = publications.get();
        if (l.publicationsSeen == now) {
            return;
        }
        for (int i = 0; i < lanes.length; i++) {
            long p = published.get(i);
            if (i != l.index && p > 0) {
                waitFor(l, lanes[i], p);
            }
        }
        l.publicationsSeen = now;
    }

    /**
     * Lane l's stream waits for lane o's point {@code point}: o records its event now if its last record is older (the
     * point was passed before this call, so a record now follows it), and l waits for that record.
     */
    private void waitFor(Lane l, Lane o, long point) {
        if (l.seen[o.index] >= point) {
            return;
        }
        synchronized (o.recording) {
            if (o.recorded < point) {
                long passed = o.clock; // read before the record: every point up to it is queued before the record
                device.record(o.event, o.stream);
                o.recorded = passed;
            }
            device.waitEvent(l.stream, o.event);
            l.seen[o.index] = o.recorded;
        }
    }
}
