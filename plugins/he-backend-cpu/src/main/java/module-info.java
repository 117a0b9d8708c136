/** ckks-cpu: the shared RNS-CKKS scheme (dev.polyhe.ckks) with its ring arithmetic on JVM arrays. */
module dev.polyhe.backend.cpu {
    requires transitive dev.polyhe.api;
    requires dev.polyhe.ckks;
    requires java.management;

    exports dev.polyhe.backend.cpu;

    uses dev.polyhe.api.he.HeBackend;

    provides dev.polyhe.api.he.HeBackend with
            dev.polyhe.backend.cpu.CkksCpuBackend;
}
