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
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadFatBinary;
import static jcuda.driver.JCudaDriver.cuModuleUnload;

import dev.polyhe.api.he.HeException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;

/**
 * GPU 0 through the driver API: its primary context, the ring kernels loaded from the fatbin in this jar, and
 * kernel launches. Every call binds the context to the calling thread first (driver contexts are per thread).
 */
final class CudaDevice implements AutoCloseable {
    static final String KERNELS = "ring_kernels.fatbin";
    /** Threads per block of every launch; the kernels take any. */
    private static final int BLOCK = 256;

    private final CUdevice device = new CUdevice();
    private final CUcontext context = new CUcontext();
    private final CUmodule module = new CUmodule();
    private final Map<String, CUfunction> functions = new ConcurrentHashMap<>();
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
        check(cuDeviceGetAttribute(major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "compute capability");
        check(cuDeviceGetAttribute(minor, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "compute capability");
        computeCapability = 10 * major[0] + minor[0];
        if (computeCapability < 80) {
            throw new HeException(String.format("%s has compute capability %d.%d; ckks-cuda's kernels need 8.0 or "
                    + "newer (A100, H100, H200, ...)", name, major[0], minor[0]));
        }
        check(cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain");
        bind();
        check(cuModuleLoadFatBinary(module, fatbin), "loading the ring kernels (cuModuleLoadFatBinary)");
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

    String name() {
        return name;
    }

    /** "13.0" from the driver's 13000. */
    String driverVersion() {
        return (driverVersion / 1000) + "." + (driverVersion % 1000) / 10;
    }

    long totalMemory() {
        return totalMemory;
    }

    String computeCapability() {
        return (computeCapability / 10) + "." + (computeCapability % 10);
    }

    void bind() {
        check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    }

    void synchronize() {
        check(cuCtxSynchronize(), "cuCtxSynchronize");
    }

    private CUfunction function(String kernel) {
        return functions.computeIfAbsent(kernel, k -> {
            CUfunction f = new CUfunction();
            check(cuModuleGetFunction(f, module, k), "kernel " + k);
            return f;
        });
    }

    /**
     * One launch over {@code count} indices per limb and {@code limbs} limbs (grid x over the indices, y over the
     * limbs); {@code args} are the kernel's parameters, each a {@link Pointer} to the value or device pointer.
     */
    void launch(String kernel, long count, int limbs, Pointer... args) {
        if (count == 0 || limbs == 0) {
            return;
        }
        int blocks = (int) ((count + BLOCK - 1) / BLOCK);
        check(cuLaunchKernel(function(kernel), blocks, limbs, 1, BLOCK, 1, 1, 0, null, Pointer.to(args), null),
                "launching " + kernel);
    }

    static void check(int result, String what) {
        if (result != CUresult.CUDA_SUCCESS) {
            throw new HeException("ckks-cuda: " + what + " failed: " + CUresult.stringFor(result));
        }
    }

    @Override
    public void close() {
        bind();
        cuModuleUnload(module);
        cuDevicePrimaryCtxRelease(device);
    }
}
