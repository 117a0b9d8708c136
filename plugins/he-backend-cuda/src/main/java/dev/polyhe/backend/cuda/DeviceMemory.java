package dev.polyhe.backend.cuda;

import dev.polyhe.api.he.HeException;
import dev.polyhe.backend.cuda.DeviceApi.Ptr;
import java.lang.ref.Cleaner;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Device memory for one executor: buffers are taken from free lists by size (a context allocates few distinct
 * sizes: limbs × N words) and come back when the handle holding them is collected ({@link Cleaner}) or released;
 * {@link #close()} frees everything. The JVM does not see device memory, so an allocation the device refuses first
 * returns the free lists, then asks for a collection (handles nobody holds give their buffers back), then tries
 * once more, and only then says how much it needed.
 */
final class DeviceMemory implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final DeviceApi device;
    private final Lanes lanes;
    /** By size, per lane: a buffer goes back to the lane that wrote it last, which takes it again without a wait. */
    private final Map<Long, Free> free = new HashMap<>();

    private long inUse;
    private long peak;
    /** Buffers handed back so far: whether a collection freed anything. */
    private long returned;

    private boolean closed;

    DeviceMemory(DeviceApi device, Lanes lanes) {
        this.device = device;
        this.lanes = lanes;
    }

    /**
     * A device buffer, back in the pool when the returned {@link Allocation} becomes unreachable (every handle that
     * shares it holds the allocation) or when it is released. Taken in an operation on the calling thread's lane,
     * whose stream first waits for the other lanes' last uses of the buffer.
     */
    Allocation allocate(long bytes) {
        Block block = take(bytes, lanes.current().index);
        Allocation a = new Allocation(block, bytes, lanes);
        a.cleanable = CLEANER.register(a, new GiveBack(this, block, bytes));
        lanes.reuse(a);
        return a;
    }

    private synchronized Block take(long bytes, int lane) {
        if (closed) {
            throw new IllegalStateException("this ckks-cuda context is closed");
        }
        Free list = free.get(bytes);
        Block block = list == null ? null : list.poll(lane);
        if (block == null) {
            long handle = device.allocate(bytes);
            block = handle == DeviceApi.OUT_OF_MEMORY ? reclaim(bytes, lane) : new Block(handle, lanes.count());
            if (block == null) {
                long[] info = device.memoryInfo();
                throw new HeException(String.format(
                        "ckks-cuda: out of device memory on %s: needed %s more, %s free "
                                + "of %s (%s held by this context); use fewer rotation keys, "
                                + "smaller parameters or a larger GPU",
                        device.name(), size(bytes), size(info[0]), size(info[1]), size(inUse)));
            }
        }
        inUse += bytes;
        peak = Math.max(peak, inUse);
        return block;
    }

    /**
     * What the device refused, after giving it back what the pool holds and collecting the handles nobody holds (their
     * buffers come back to the pool through the cleaner): a buffer of this size from the pool, a new one, or null.
     */
    private Block reclaim(long bytes, int lane) {
        trim();
        long before = returned;
        System.gc();
        for (int i = 0; i < 20 && returned == before; i++) {
            waitForCleaner(); // up to a second for the cleaner to hand the collected buffers back
        }
        Free list = free.get(bytes);
        Block back = list == null ? null : list.poll(lane);
        if (back != null) {
            return back;
        }
        trim();
        long handle = device.allocate(bytes);
        return handle == DeviceApi.OUT_OF_MEMORY ? null : new Block(handle, lanes.count());
    }

    /** Cleaner threads finish returning buffers: a short wait, as the collection above has queued them. */
    private void waitForCleaner() {
        try {
            wait(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void give(Block block, long bytes) {
        inUse -= bytes;
        returned++;
        if (closed) {
            return;
        }
        free.computeIfAbsent(bytes, k -> new Free(lanes.count())).push(block);
        notifyAll();
    }

    /**
     * Frees the pooled buffers (the device is bound to this thread). Their last uses may still be queued on any
     * stream: the device finishes its work first (the driver's free is not ordered with non-blocking streams).
     */
    private void trim() {
        device.bind();
        if (free.values().stream().anyMatch(list -> !list.isEmpty())) {
            device.synchronize();
        }
        for (Free list : free.values()) {
            for (ArrayDeque<Block> lane : list.byLane) {
                for (Block b : lane) {
                    device.free(b.handle);
                }
            }
        }
        free.clear();
    }

    synchronized long bytesInUse() {
        return inUse;
    }

    synchronized long peakBytes() {
        return peak;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            trim();
            closed = true;
        }
    }

    private static String size(long bytes) {
        return bytes >= 1L << 20
                ? String.format("%.1f MiB", bytes / 1048576.0)
                : String.format("%.1f KiB", bytes / 1024.0);
    }

    /** Runs once, from {@link Allocation#release()} or the cleaner; holds nothing that keeps the allocation alive. */
    private record GiveBack(DeviceMemory pool, Block block, long bytes) implements Runnable {
        @Override
        public void run() {
            pool.give(block, bytes);
        }
    }

    /** Free buffers of one size, a list per lane (the last writer's). */
    private static final class Free {
        final ArrayDeque<Block>[] byLane;

        @SuppressWarnings("unchecked")
        Free(int lanes) {
            byLane = new ArrayDeque[lanes];
            for (int i = 0; i < lanes; i++) {
                byLane[i] = new ArrayDeque<>();
            }
        }

        void push(Block b) {
            byLane[b.writer].push(b);
        }

        /** The lane's own first (no wait), else another's. */
        Block poll(int lane) {
            Block b = byLane[lane].poll();
            for (int i = 1; b == null && i < byLane.length; i++) {
                b = byLane[(lane + i) % byLane.length].poll();
            }
            return b;
        }

        boolean isEmpty() {
            for (ArrayDeque<Block> l : byLane) {
                if (!l.isEmpty()) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * A driver allocation and what orders its reuse across streams ({@link Lanes}): the lane and point of its last
     * write, and per lane the point of its last use. It outlives the handles that share it, from the pool to the pool.
     */
    static final class Block {
        final long handle;
        final Ptr ptr;
        /** The lane that wrote it last, and the point after that write (0 while its operation is still queuing). */
        volatile int writer;

        volatile long written;
        /** Per lane: the point after its last use (each lane writes its own entry only). */
        final long[] used;

        private Block(long handle, int lanes) {
            this.handle = handle;
            this.ptr = new Ptr(handle, 0);
            this.used = new long[lanes];
        }
    }

    /** One device buffer, shared by the handles of one polynomial and its prefixes. */
    static final class Allocation {
        final Ptr ptr;
        final long bytes;
        final Block block;
        private final Lanes lanes;
        private Cleaner.Cleanable cleanable;
        private volatile boolean released;

        private Allocation(Block block, long bytes, Lanes lanes) {
            this.block = block;
            this.ptr = block.ptr;
            this.bytes = bytes;
            this.lanes = lanes;
        }

        /** Back to the pool now (a temporary, in an operation): its uses so far pass a point of the lane first. */
        void release() {
            if (!released) {
                lanes.released(this);
                released = true;
            }
            cleanable.clean();
        }

        /** Lane {@code lane} used it up to {@code point} (nothing once released: the block may be another's). */
        void used(int lane, long point) {
            if (!released) {
                block.used[lane] = point;
            }
        }

        void written(int lane, long point) {
            if (!released) {
                block.writer = lane;
                block.written = point;
                block.used[lane] = point;
            }
        }
    }
}
