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
    private final Map<Long, ArrayDeque<Long>> free = new HashMap<>();
    private long inUse;
    private long peak;
    /** Buffers handed back so far: whether a collection freed anything. */
    private long returned;
    private boolean closed;

    DeviceMemory(DeviceApi device) {
        this.device = device;
    }

    /**
     * A device buffer, back in the pool when the returned {@link Allocation} becomes unreachable (every handle that
     * shares it holds the allocation) or when it is released.
     */
    Allocation allocate(long bytes) {
        long handle = take(bytes);
        Allocation a = new Allocation(new Ptr(handle, 0), bytes);
        a.cleanable = CLEANER.register(a, new GiveBack(this, handle, bytes));
        return a;
    }

    private synchronized long take(long bytes) {
        if (closed) {
            throw new IllegalStateException("this ckks-cuda context is closed");
        }
        ArrayDeque<Long> list = free.get(bytes);
        Long pooled = list == null ? null : list.poll();
        long handle;
        if (pooled != null) {
            handle = pooled;
        } else {
            handle = device.allocate(bytes);
            if (handle == DeviceApi.OUT_OF_MEMORY) {
                handle = reclaim(bytes);
            }
            if (handle == DeviceApi.OUT_OF_MEMORY) {
                long[] info = device.memoryInfo();
                throw new HeException(String.format("ckks-cuda: out of device memory on %s: needed %s more, %s free "
                        + "of %s (%s held by this context); use fewer rotation keys, smaller parameters or a larger GPU",
                        device.name(), size(bytes), size(info[0]), size(info[1]), size(inUse)));
            }
        }
        inUse += bytes;
        peak = Math.max(peak, inUse);
        return handle;
    }

    /**
     * What the device refused, after giving it back what the pool holds and collecting the handles nobody holds (their
     * buffers come back to the pool through the cleaner): a buffer of this size from the pool, or a new one.
     */
    private long reclaim(long bytes) {
        trim();
        long before = returned;
        System.gc();
        for (int i = 0; i < 20 && returned == before; i++) {
            waitForCleaner(); // up to a second for the cleaner to hand the collected buffers back
        }
        ArrayDeque<Long> list = free.get(bytes);
        Long back = list == null ? null : list.poll();
        if (back != null) {
            return back;
        }
        trim();
        return device.allocate(bytes);
    }

    /** Cleaner threads finish returning buffers: a short wait, as the collection above has queued them. */
    private void waitForCleaner() {
        try {
            wait(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void give(long handle, long bytes) {
        inUse -= bytes;
        returned++;
        if (closed) {
            return;
        }
        free.computeIfAbsent(bytes, k -> new ArrayDeque<>()).push(handle);
        notifyAll();
    }

    /** Frees the pooled buffers (the device is bound to this thread). */
    private void trim() {
        device.bind();
        for (ArrayDeque<Long> list : free.values()) {
            for (long h : list) {
                device.free(h);
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
        return bytes >= 1L << 20 ? String.format("%.1f MiB", bytes / 1048576.0)
                : String.format("%.1f KiB", bytes / 1024.0);
    }

    /** Runs once, from {@link Allocation#release()} or the cleaner; holds nothing that keeps the allocation alive. */
    private record GiveBack(DeviceMemory pool, long handle, long bytes) implements Runnable {
        @Override
        public void run() {
            pool.give(handle, bytes);
        }
    }

    /** One device buffer. Kernels run in launch order on one stream, so a buffer may be reused as soon as it is back. */
    static final class Allocation {
        final Ptr ptr;
        final long bytes;
        private Cleaner.Cleanable cleanable;

        private Allocation(Ptr ptr, long bytes) {
            this.ptr = ptr;
            this.bytes = bytes;
        }

        /** Back to the pool now (a temporary); later calls and the cleaner do nothing. */
        void release() {
            cleanable.clean();
        }
    }
}
