package dev.polyhe.ckks.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.ckks.scheme.CkksContext;
import dev.polyhe.ckks.scheme.CkksPresets;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * insecure-test-boot-N12: 2048 full slots and 128 sparse slots, each once (keys: 66 rotations and the
 * conjugation, 0.48 GB; about 10–20 s on two shared cores in all). Measured: full slots 21.5 bits worst slot /
 * 24.4 mean; sparse slots (one EvalMod for both halves) about 26 / 28.
 */
class BootstrapN12Test {
    private static double[] bootstrapAndMeasure(HeContext ctx, Evaluator ev, SecretKey sk, int slots, Random r) {
        double[] v = new double[slots];
        for (int i = 0; i < slots; i++) {
            v[i] = 2 * r.nextDouble() - 1;
        }
        v[0] = 1;
        v[1] = -1;
        Ciphertext in = ctx.encryptor(sk)
                .encrypt(ctx.encoder().encode(v, slots, 0, ctx.parameters().scale()));
        Ciphertext out = ev.bootstrap(in);
        assertEquals(3, out.level(), "levels left");
        assertEquals(in.scale(), out.scale(), in.scale() * 0x1p-30);
        double[] d = ctx.encoder().decode(ctx.decryptor(sk).decrypt(out));
        double max = 0;
        double mean = 0;
        for (int i = 0; i < slots; i++) {
            double e = Math.max(Math.abs(d[i] - v[i]), 0x1p-60);
            max = Math.max(max, e);
            mean -= Math.log(e) / Math.log(2) / slots;
        }
        return new double[] {-Math.log(max) / Math.log(2), mean};
    }

    @Test
    void fullAndSparseSlotsKeepTwentyBits() {
        try (HeContext ctx = new CkksContext(CkksPresets.get("insecure-test-boot-N12"), 2)) {
            SecretKey sk = ctx.generateSecretKey();
            EvaluationKeys keys = ctx.generateEvaluationKeys(sk, Set.of(), false, true);
            Evaluator ev = ctx.evaluator(keys);
            Random r = new Random(12);
            double[] full = bootstrapAndMeasure(ctx, ev, sk, ctx.parameters().slots(), r);
            assertTrue(full[0] >= 19 && full[1] >= 21, "full slots: worst " + full[0] + ", mean " + full[1]);
            double[] sparse = bootstrapAndMeasure(ctx, ev, sk, 128, r);
            assertTrue(sparse[0] >= 21 && sparse[1] >= 23, "128 slots: worst " + sparse[0] + ", mean " + sparse[1]);
        }
    }
}
