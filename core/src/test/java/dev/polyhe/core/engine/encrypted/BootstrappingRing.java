package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.core.PolyHe;

/**
 * The small bootstrapping ring of the refresh tests ({@code insecure-test-boot-N10}) with client keys and evaluation
 * keys for one packing's rotations: each test class opens one and makes a fresh engine per test.
 */
final class BootstrappingRing implements AutoCloseable {
    private final PolyHe polyhe;
    private final HeContext ctx;
    private final SecretKey sk;
    private final EvaluationKeys keys;
    private final Packing packing;

    BootstrappingRing(Packing packing) {
        this.packing = packing;
        polyhe = PolyHe.builder().build();
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        ctx = backend.open(backend.preset("insecure-test-boot-N10"));
        sk = ctx.generateSecretKey();
        keys = ctx.generateEvaluationKeys(sk, packing.rotationSteps(), false, true);
    }

    HeContext context() {
        return ctx;
    }

    /** A fresh engine (its own bounds, refreshed copies and accounting) on this ring's keys. */
    EncryptedEngine engine() {
        return new EncryptedEngine(ctx, ctx.evaluator(keys), keys, ctx.encryptor(sk), ctx.decryptor(sk), packing);
    }

    @Override
    public void close() {
        ctx.close();
        polyhe.close();
    }
}
