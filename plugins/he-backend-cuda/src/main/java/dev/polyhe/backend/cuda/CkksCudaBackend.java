package dev.polyhe.backend.cuda;

import dev.polyhe.api.he.Availability;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeException;
import dev.polyhe.ckks.scheme.CkksContext;
import dev.polyhe.ckks.scheme.SchemeBackend;
import java.util.function.Supplier;

/**
 * The GPU backend {@code ckks-cuda}: the same scheme as {@code ckks-cpu} (its presets, keys and blob format), with
 * ciphertexts and evaluation keys in GPU memory and the ring arithmetic in CUDA kernels. Host threads serve the
 * client's work (key generation, encoding, encryption).
 */
public final class CkksCudaBackend extends SchemeBackend {
    public static final String NAME = "ckks-cuda";

    private final int threads;
    /** Null: GPU 0 through the driver; else where each context's device comes from (tests: an emulated one). */
    private final Supplier<DeviceApi> devices;
    /** Streams per context: ciphertexts in flight at once ({@value Lanes#PROPERTY}; 1: one stream, as before). */
    private final int streams;
    /** Tests: each operation on the next stream in turn (CudaRingExecutor#hopStreamsForTests). */
    private final boolean hop;

    /** The ServiceLoader constructor: host threads = the processor count. */
    public CkksCudaBackend() {
        this(Runtime.getRuntime().availableProcessors());
    }

    public CkksCudaBackend(int threads) {
        this(threads, null);
    }

    CkksCudaBackend(int threads, Supplier<DeviceApi> devices) {
        this(threads, devices, Lanes.configured());
    }

    CkksCudaBackend(int threads, Supplier<DeviceApi> devices, int streams) {
        this(threads, devices, streams, false);
    }

    CkksCudaBackend(int threads, Supplier<DeviceApi> devices, int streams, boolean hop) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads = " + threads + "; at least 1 is needed");
        }
        if (streams < 1 || streams > Lanes.MAX) {
            throw new IllegalArgumentException("ckks-cuda streams = " + streams + "; 1 to " + Lanes.MAX
                    + " (system property " + Lanes.PROPERTY + ")");
        }
        this.threads = threads;
        this.devices = devices;
        this.streams = streams;
        this.hop = hop;
    }

    @Override
    public int parallelism() {
        return threads;
    }

    @Override
    public HeBackend withParallelism(int threads) {
        return threads == this.threads ? this : new CkksCudaBackend(threads, devices, streams, hop);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "RNS-CKKS on an NVIDIA GPU (JCuda driver API, kernels for sm_80/sm_90): the ckks-cpu scheme, data on "
                + "the device";
    }

    @Override
    public Availability availability() {
        return devices != null ? Availability.yes() : CudaProbe.availability();
    }

    @Override
    public HeContext open(CkksParameters parameters) {
        Availability a = availability();
        if (!a.available()) {
            throw new HeException(a.reason());
        }
        return new CkksContext(parameters, threads, p -> {
            CudaRingExecutor exec =
                    CudaRingExecutor.open(devices == null ? CudaDevice.open() : devices.get(), p, streams);
            exec.hopStreamsForTests(hop);
            return exec;
        });
    }
}
