package dev.polyhe.backend.cuda;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;

import dev.polyhe.api.he.HeException;
import java.lang.ref.Cleaner;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUresult;

/**
 * Device memory for one executor: buffers are taken from free lists by size (a context allocates few distinct
 * sizes: limbs × N words) and come back when the handle holding them is collected ({@link Cleaner}) or released;
 * {@link #close()} frees everything. The JVM does not see device memory, so an allocation the device refuses first
 * returns the free lists, then asks for a collection (handles nobody holds give their buffers back), then tries
 * once more, and only then says how much it needed.
 */
final class DeviceMemory implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final CudaDevice device;
    private final Map<Long, ArrayDeque<CUdeviceptr>> free = new HashMap<>();
    private long inUse;
    private long pooled;
    private long peak;
    private boolean closed;

    DeviceMemory(CudaDevice device) {
        this.device = device;
    }

    /**
     * A device buffer, back in the pool when the returned {@link Allocation} becomes unreachable (every handle that
     * shares it holds the allocation) or when it is released.
     */
    Allocation allocate(long bytes) {
        CUdeviceptr ptr = take(bytes);
        Allocation a = new Allocation(ptr, bytes);
        a.cleanable = CLEANER.register(a, new GiveBack(this, ptr, bytes));
        return a;
    }

    private synchronized CUdeviceptr take(long bytes) {
        if (closed) {
            throw new IllegalStateException("this ckks-cuda context is closed");
        }
        ArrayDeque<CUdeviceptr> list = free.get(bytes);
        CUdeviceptr ptr = list == null ? null : list.poll();
        if (ptr != null) {
            pooled -= bytes;
        } else {
            ptr = new CUdeviceptr();
            int rc = cuMemAlloc(ptr, bytes);
            if (rc == CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
                trim();
                System.gc();
                waitForCleaner();
                rc = cuMemAlloc(ptr, bytes);
            }
            if (rc == CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
                long[] freeBytes = {0};
                long[] total = {0};
                cuMemGetInfo(freeBytes, total);
                throw new HeException(String.format("ckks-cuda: out of device memory on %s: needed %.1f MiB more, "
                        + "%.1f MiB free of %.1f MiB (%.1f MiB held by this context); use fewer rotation keys, "
                        + "smaller parameters or a larger GPU", device.name(), mib(bytes), mib(freeBytes[0]),
                        mib(total[0]), mib(inUse)));
            }
            CudaDevice.check(rc, "cuMemAlloc of " + bytes + " bytes");
        }
        inUse += bytes;
        peak = Math.max(peak, inUse);
        return ptr;
    }

    /** Cleaner threads finish returning buffers: a short wait, as the collection above has queued them. */
    private void waitForCleaner() {
        try {
            wait(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void give(CUdeviceptr ptr, long bytes) {
        inUse -= bytes;
        if (closed) {
            return;
        }
        free.computeIfAbsent(bytes, k -> new ArrayDeque<>()).push(ptr);
        pooled += bytes;
        notifyAll();
    }

    /** Frees the pooled buffers (the device context must be current). */
    private void trim() {
        device.bind();
        for (ArrayDeque<CUdeviceptr> list : free.values()) {
            for (CUdeviceptr p : list) {
                cuMemFree(p);
            }
        }
        free.clear();
        pooled = 0;
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

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }

    /** Runs once, from {@link Allocation#release()} or the cleaner; holds nothing that keeps the allocation alive. */
    private record GiveBack(DeviceMemory pool, CUdeviceptr ptr, long bytes) implements Runnable {
        @Override
        public void run() {
            pool.give(ptr, bytes);
        }
    }

    /** One device buffer. Kernels run in launch order on one stream, so a buffer may be reused as soon as it is back. */
    static final class Allocation {
        final CUdeviceptr ptr;
        final long bytes;
        private Cleaner.Cleanable cleanable;

        private Allocation(CUdeviceptr ptr, long bytes) {
            this.ptr = ptr;
            this.bytes = bytes;
        }

        /** Back to the pool now (a temporary); later calls and the cleaner do nothing. */
        void release() {
            cleanable.clean();
        }
    }
}
