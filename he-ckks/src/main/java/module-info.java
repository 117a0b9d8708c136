/**
 * The RNS-CKKS scheme the backends share (ring → rlwe → scheme → bootstrap, as in Lattigo): parameters and
 * presets, the canonical encoder, key generation, hybrid key switching, the evaluator's logic, bootstrapping and
 * serialization. A library, not a plugin: it provides no service; a backend ({@code ckks-cpu}) opens a
 * {@link dev.polyhe.ckks.scheme.CkksContext} over it.
 */
module dev.polyhe.ckks {
    requires transitive dev.polyhe.api;
    // optional: SIMD NTT layers where the launcher adds the incubating module (dev.polyhe.ckks.ring.Simd)
    requires static jdk.incubator.vector;

    exports dev.polyhe.ckks.ring;
    exports dev.polyhe.ckks.rlwe;
    exports dev.polyhe.ckks.executor;
    exports dev.polyhe.ckks.scheme;
    exports dev.polyhe.ckks.bootstrap;
}
