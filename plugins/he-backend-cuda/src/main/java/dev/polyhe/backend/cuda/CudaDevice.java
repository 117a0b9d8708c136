package dev.polyhe.backend.cuda;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuDeviceTotalMem;
import static jcuda.driver.JCudaDriver.cuDriverGetVersion;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD8;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleGetLoadingMode;
import static jcuda.driver.JCudaDriver.cuModuleLoadDataEx;
import static jcuda.driver.JCudaDriver.cuModuleUnload;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import dev.polyhe.api.he.HeException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;

/**
 * GPU 0 through the driver API: its primary context, the ring kernels loaded from the fatbin in this jar, and
 * kernel launches. Every call binds the context to the calling thread first (driver contexts are per thread).
 */
final class CudaDevice implements DeviceApi {
    static final String KERNELS = "ring_kernels.fatbin";
    /** Threads per block of every launch; the kernels take any. */
    private static final int BLOCK = 256;

    private final CUdevice device = new CUdevice();
    private final CUcontext context = new CUcontext();
    private final CUmodule module = new CUmodule();
    /**
     * The fatbin, outside the Java heap and held as long as the module: under lazy module loading (the driver's
     * default since CUDA 12.2) the driver reads a kernel from the image at its first use, not at the load.
     */
    private final ByteBuffer image;

    private final String loadingMode;
    private final Map<String, CUfunction> functions = new ConcurrentHashMap<>();
    private final Map<Long, CUdeviceptr> allocations = new ConcurrentHashMap<>();
    private final AtomicLong handles = new AtomicLong();
    private final DeviceCounts counts = new DeviceCounts();
    /** Null unless POLYHE_CUDA_PROFILE is set: device time per kernel, from events around each launch. */
    private final KernelProfile profile = KernelProfile.requested() ? new KernelProfile() : null;
    /** Launches timed but not yet read back, and events to reuse. */
    private final List<Timed> timed = new ArrayList<>();

    private final ArrayDeque<CUevent> events = new ArrayDeque<>();
    /** Streams and ordering events by handle (handle h at h - 1; stream 0 is the legacy default stream, null). */
    private final List<CUstream> streams = new CopyOnWriteArrayList<>();

    private final List<CUevent> orderEvents = new CopyOnWriteArrayList<>();
    /**
     * Per stream, a buffer outside the Java heap that uploads stage through: an asynchronous copy from pageable memory
     * returns once the driver has taken the bytes, so the buffer is free again when the call returns. Only the
     * thread holding a stream uploads on it.
     */
    private final Map<Long, ByteBuffer> staging = new ConcurrentHashMap<>();

    private final String name;
    private final int driverVersion;
    private final long totalMemory;
    private final int computeCapability;

    private CudaDevice(byte[] fatbin) {
        check(cuInit(0), "cuInit");
        int[] count = {0};
        check(cuDeviceGetCount(count), "cuDeviceGetCount");
        if (count[0] == 0) {
            throw new HeException("no CUDA device: the driver sees none");
        }
        check(cuDeviceGet(device, 0), "cuDeviceGet");
        byte[] raw = new byte[256];
        check(cuDeviceGetName(raw, raw.length, device), "cuDeviceGetName");
        int end = 0;
        while (end < raw.length && raw[end] != 0) {
            end++;
        }
        name = new String(raw, 0, end, StandardCharsets.US_ASCII);
        int[] v = {0};
        check(cuDriverGetVersion(v), "cuDriverGetVersion");
        driverVersion = v[0];
        long[] mem = {0};
        check(cuDeviceTotalMem(mem, device), "cuDeviceTotalMem");
        totalMemory = mem[0];
        int[] major = {0};
        int[] minor = {0};
        check(
                cuDeviceGetAttribute(major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
                "compute capability");
        check(
                cuDeviceGetAttribute(minor, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
                "compute capability");
        computeCapability = 10 * major[0] + minor[0];
        if (computeCapability < 80) {
            throw new HeException(String.format(
                    "%s has compute capability %d.%d; ckks-cuda's kernels need 8.0 or "
                            + "newer (A100, H100, H200, ...)",
                    name, major[0], minor[0]));
        }
        check(cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain");
        bind();
        image = ByteBuffer.allocateDirect(fatbin.length).put(fatbin).flip();
        check(
                cuModuleLoadDataEx(module, Pointer.to(image), 0, new int[0], new Pointer()),
                "loading the ring kernels (cuModuleLoadDataEx)");
        int[] mode = {0};
        loadingMode = cuModuleGetLoadingMode(mode) == CUresult.CUDA_SUCCESS
                ? (mode[0] == 1 ? "eager" : mode[0] == 2 ? "lazy" : "mode " + mode[0])
                : "unknown";
    }

    /** Opens GPU 0 with the kernels of this jar; the reason in an {@link HeException} where it cannot. */
    static CudaDevice open() {
        return new CudaDevice(kernels());
    }

    static byte[] kernels() {
        try (InputStream in = CudaDevice.class.getResourceAsStream(KERNELS)) {
            if (in == null) {
                throw new HeException("ckks-cuda: kernels not built into this jar (it was built where nvcc was not on "
                        + "the PATH; rebuild with nvcc to use the GPU)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new HeException("ckks-cuda: cannot read the kernels of this jar: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    /** "13.0" from the driver's 13000. */
    @Override
    public String driverVersion() {
        return (driverVersion / 1000) + "." + (driverVersion % 1000) / 10;
    }

    @Override
    public long totalMemory() {
        return totalMemory;
    }

    @Override
    public String computeCapability() {
        return (computeCapability / 10) + "." + (computeCapability % 10);
    }

    @Override
    public void bind() {
        check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    }

    @Override
    public void synchronize() {
        counts.synchronization();
        check(cuCtxSynchronize(), "cuCtxSynchronize");
    }

    /** Non-blocking: no implicit order with the legacy default stream, only the events the executor records. */
    @Override
    public long createStream() {
        CUstream s = new CUstream();
        check(cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
        streams.add(s);
        return streams.size();
    }

    @Override
    public long createEvent() {
        CUevent e = new CUevent();
        check(cuEventCreate(e, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
        orderEvents.add(e);
        return orderEvents.size();
    }

    @Override
    public void record(long event, long stream) {
        counts.eventRecord();
        check(cuEventRecord(orderEvents.get((int) event - 1), stream(stream)), "cuEventRecord");
    }

    @Override
    public void waitEvent(long stream, long event) {
        counts.streamWait();
        check(cuStreamWaitEvent(stream(stream), orderEvents.get((int) event - 1), 0), "cuStreamWaitEvent");
    }

    private CUstream stream(long handle) {
        return handle == DEFAULT_STREAM ? null : streams.get((int) handle - 1);
    }

    @Override
    public DeviceCounts counts() {
        return counts;
    }

    @Override
    public long[] memoryInfo() {
        long[] free = {0};
        long[] total = {0};
        cuMemGetInfo(free, total);
        return new long[] {free[0], total[0]};
    }

    @Override
    public long allocate(long bytes) {
        CUdeviceptr p = new CUdeviceptr();
        counts.allocation();
        int rc = cuMemAlloc(p, bytes);
        if (rc == CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
            return OUT_OF_MEMORY;
        }
        check(rc, "cuMemAlloc of " + bytes + " bytes");
        long h = handles.incrementAndGet();
        allocations.put(h, p);
        return h;
    }

    /** cuMemFree waits for the device: a buffer is freed only after the work queued on it. */
    @Override
    public void free(long handle) {
        CUdeviceptr p = allocations.remove(handle);
        if (p != null) {
            cuMemFree(p);
        }
    }

    private CUdeviceptr ptr(Ptr p) {
        if (p.handle() == 0) {
            return new CUdeviceptr(); // NULL
        }
        CUdeviceptr base = allocations.get(p.handle());
        if (base == null) {
            throw new IllegalStateException("ckks-cuda: device allocation " + p.handle() + " was freed");
        }
        return p.offset() == 0 ? base : base.withByteOffset(p.offset());
    }

    @Override
    public void upload(long stream, Ptr to, long[] words) {
        long bytes = (long) words.length * Long.BYTES;
        counts.upload(bytes);
        if (stream == DEFAULT_STREAM) {
            check(cuMemcpyHtoD(ptr(to), Pointer.to(words), bytes), "cuMemcpyHtoD");
            return;
        }
        ByteBuffer b = staging(stream, bytes);
        b.asLongBuffer().put(words);
        check(cuMemcpyHtoDAsync(ptr(to), Pointer.to(b), bytes, stream(stream)), "cuMemcpyHtoDAsync");
    }

    @Override
    public void upload(long stream, Ptr to, int[] words) {
        long bytes = (long) words.length * Integer.BYTES;
        counts.upload(bytes);
        if (stream == DEFAULT_STREAM) {
            check(cuMemcpyHtoD(ptr(to), Pointer.to(words), bytes), "cuMemcpyHtoD");
            return;
        }
        ByteBuffer b = staging(stream, bytes);
        b.asIntBuffer().put(words);
        check(cuMemcpyHtoDAsync(ptr(to), Pointer.to(b), bytes, stream(stream)), "cuMemcpyHtoDAsync");
    }

    /** The stream's staging buffer, at least {@code bytes} long (grown by doubling, kept). */
    private ByteBuffer staging(long stream, long bytes) {
        ByteBuffer b = staging.get(stream);
        if (b == null || b.capacity() < bytes) {
            b = ByteBuffer.allocateDirect((int) Math.max(bytes, b == null ? 1 << 16 : 2L * b.capacity()))
                    .order(ByteOrder.nativeOrder());
            staging.put(stream, b);
        }
        b.clear();
        return b;
    }

    /** The stream's queued work first (so the copy reads what it wrote), then a synchronous copy. */
    @Override
    public void download(long stream, long[] to, Ptr from) {
        counts.download();
        if (stream != DEFAULT_STREAM) {
            check(cuStreamSynchronize(stream(stream)), "cuStreamSynchronize");
        }
        check(cuMemcpyDtoH(Pointer.to(to), ptr(from), (long) to.length * Long.BYTES), "cuMemcpyDtoH");
    }

    @Override
    public void copy(long stream, Ptr to, Ptr from, long bytes) {
        if (stream == DEFAULT_STREAM) {
            check(cuMemcpyDtoD(ptr(to), ptr(from), bytes), "cuMemcpyDtoD");
        } else {
            check(cuMemcpyDtoDAsync(ptr(to), ptr(from), bytes, stream(stream)), "cuMemcpyDtoDAsync");
        }
    }

    @Override
    public void zero(long stream, Ptr to, long bytes) {
        if (stream == DEFAULT_STREAM) {
            check(cuMemsetD8(ptr(to), (byte) 0, bytes), "cuMemsetD8");
        } else {
            check(cuMemsetD8Async(ptr(to), (byte) 0, bytes, stream(stream)), "cuMemsetD8Async");
        }
    }

    private CUfunction function(String kernel) {
        return functions.computeIfAbsent(kernel, k -> {
            CUfunction f = new CUfunction();
            check(cuModuleGetFunction(f, module, k), "kernel " + k + " (module loading " + loadingMode + ")");
            return f;
        });
    }

    /** Grid x over the indices, y over the limbs, {@value #BLOCK} threads a block. */
    @Override
    public void launch(long stream, String kernel, long count, int limbs, Object... args) {
        if (count == 0 || limbs == 0) {
            return;
        }
        launchBlocks(stream, kernel, (int) ((count + BLOCK - 1) / BLOCK), limbs, BLOCK, 0, args);
    }

    @Override
    public void launchBlocks(
            long stream, String kernel, int blocks, int limbs, int threads, int sharedBytes, Object... args) {
        if (blocks == 0 || limbs == 0) {
            return;
        }
        Pointer[] params = new Pointer[args.length];
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof Ptr p) {
                params[i] = Pointer.to(ptr(p));
            } else if (args[i] instanceof Integer v) {
                params[i] = Pointer.to(new int[] {v});
            } else if (args[i] instanceof long[] words) {
                params[i] = Pointer.to(words); // by value: the driver copies the parameter's size from here
            } else {
                throw new IllegalArgumentException("kernel parameter " + args[i].getClass());
            }
        }
        counts.launch();
        CUstream s = stream(stream);
        CUevent start = profile == null ? null : event(s);
        check(
                cuLaunchKernel(
                        function(kernel), blocks, limbs, 1, threads, 1, 1, sharedBytes, s, Pointer.to(params), null),
                "launching " + kernel);
        if (profile != null) {
            CUevent stop = event(s);
            synchronized (this) { // streams launch from several threads
                timed.add(new Timed(kernel, start, stop));
                if (timed.size() >= 1024) {
                    readTimes();
                }
            }
        }
    }

    private record Timed(String kernel, CUevent start, CUevent stop) {}

    /** An event recorded now on the stream (profiling only). */
    private synchronized CUevent event(CUstream stream) {
        CUevent e = events.poll();
        if (e == null) {
            e = new CUevent();
            check(cuEventCreate(e, 0), "cuEventCreate");
        }
        check(cuEventRecord(e, stream), "cuEventRecord");
        return e;
    }

    /** Waits for the timed launches and adds their device times to the profile. */
    private synchronized void readTimes() {
        if (timed.isEmpty()) {
            return;
        }
        // every stream's timed launches, not only the last one's
        check(cuCtxSynchronize(), "cuCtxSynchronize");
        float[] ms = {0};
        for (Timed t : timed) {
            check(cuEventElapsedTime(ms, t.start(), t.stop()), "cuEventElapsedTime");
            profile.record(t.kernel(), ms[0]);
            events.push(t.start());
            events.push(t.stop());
        }
        timed.clear();
    }

    static void check(int result, String what) {
        if (result != CUresult.CUDA_SUCCESS) {
            throw new HeException("ckks-cuda: " + what + " failed: " + CUresult.stringFor(result));
        }
    }

    @Override
    public void close() {
        bind();
        if (profile != null) {
            readTimes();
            events.forEach(e -> cuEventDestroy(e));
            if (!profile.isEmpty()) {
                System.err.print(profile.report());
            }
        }
        cuCtxSynchronize();
        orderEvents.forEach(e -> cuEventDestroy(e));
        streams.forEach(s -> cuStreamDestroy(s));
        allocations.values().forEach(p -> cuMemFree(p));
        allocations.clear();
        cuModuleUnload(module);
        cuDevicePrimaryCtxRelease(device);
    }
}
