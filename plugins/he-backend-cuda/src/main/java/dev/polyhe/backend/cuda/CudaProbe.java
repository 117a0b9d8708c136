package dev.polyhe.backend.cuda;

import dev.polyhe.api.he.Availability;
import dev.polyhe.api.he.HeException;

/**
 * Whether this JVM can run ckks-cuda, asked once: kernels in the jar, JCuda's driver binding loadable, a CUDA
 * driver, a device of compute capability 8.0 or newer. The reason is one line a user can act on.
 */
final class CudaProbe {
    static final String BINDING = "libJCudaDriver-12.6.0-linux-x86_64.so";

    private static volatile Availability result;

    private CudaProbe() {}

    static Availability availability() {
        Availability a = result;
        if (a == null) {
            a = probe();
            result = a;
        }
        return a;
    }

    private static Availability probe() {
        try {
            CudaDevice.kernels();
        } catch (HeException e) {
            return no(e.getMessage());
        }
        try {
            Class.forName("jcuda.driver.JCudaDriver", true, CudaProbe.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return Availability.no("JCuda is not on the module path (jcuda-12.6.0.jar)");
        } catch (LinkageError e) {
            return Availability.no(nativeReason(e));
        }
        try (CudaDevice device = CudaDevice.open()) {
            return Availability.yes();
        } catch (HeException e) {
            return no(e.getMessage());
        } catch (LinkageError e) {
            return Availability.no(nativeReason(e));
        }
    }

    /** The reason without the backend's name, which the listing already shows beside it. */
    private static Availability no(String message) {
        return Availability.no(message.startsWith("ckks-cuda: ") ? message.substring("ckks-cuda: ".length()) : message);
    }

    /** JCuda reports a missing driver and a missing binding alike (UnsatisfiedLinkError): tell them apart. */
    static String nativeReason(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        String text = all.toString();
        if (text.contains("libcuda.so")) {
            return "no CUDA driver: libcuda.so.1 not found";
        }
        if (text.contains("JCudaDriver")) {
            return "JCuda's driver binding " + BINDING + " is not on java.library.path (the polyhe script "
                    + "adds launcher/target/native/lib; elsewhere pass -Djava.library.path=<that folder>)";
        }
        return "JCuda could not load: " + text.lines().findFirst().orElse(e.toString());
    }
}
