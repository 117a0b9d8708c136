/** ckks-cpu: RNS-CKKS in pure Java (ring → rlwe → ckks, as in Lattigo). */
module dev.polyhe.backend.cpu {
    requires transitive dev.polyhe.api;
    requires java.management;

    exports dev.polyhe.backend.cpu;

    uses dev.polyhe.api.he.HeBackend;

    provides dev.polyhe.api.he.HeBackend with dev.polyhe.backend.cpu.CkksCpuBackend;
}
