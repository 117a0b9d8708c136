package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.core.PolyHe;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The model's last linear map, run by the plan one level lower (the tail after the last bootstrap), lands its output
 * on level 0 even where the output's range does not fit level 0 at Δ (q_0/Δ is 2^12 on a bootstrapping chain): on a
 * smaller scale the range fits, so every weight encode, product and rotation of that map pays one limb less. On
 * columns and on column blocks (the LM head's layout), with a bias.
 */
class TailLandingTest {
    private static final String PRESET = "insecure-test-boot-dense-N10";
    private static final int TOKENS = 4;
    private static final int IN = 8;
    private static final int OUT = 6;

    @Test
    void aLoweredMapLandsOnLevelZeroAtAScaleItsRangeFits() {
        Random r = new Random(11);
        double[] xs = new double[TOKENS * IN];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = 2 * r.nextDouble() - 1;
        }
        Matrix x = new Matrix(TOKENS, IN, xs);
        // weights of about 40: each output's interval bound is about 8·40 = 320, beyond level 0's 128 at Δ
        double[] ws = new double[OUT * IN];
        for (int i = 0; i < ws.length; i++) {
            ws[i] = (r.nextBoolean() ? 1 : -1) * (30 + 20 * r.nextDouble());
        }
        Matrix w = new Matrix(OUT, IN, ws);
        double[] bias = {3, -2, 0, 1.5, -4, 0.25};
        double[] expected = new double[TOKENS * OUT];
        for (int t = 0; t < TOKENS; t++) {
            for (int o = 0; o < OUT; o++) {
                double s = bias[o];
                for (int j = 0; j < IN; j++) {
                    s += x.get(t, j) * w.get(o, j);
                }
                expected[t * OUT + o] = s;
            }
        }
        try (PolyHe polyhe = PolyHe.builder().build()) {
            HeBackend backend = polyhe.plugins().backend("ckks-cpu");
            try (HeContext ctx = backend.open(backend.preset(PRESET))) {
                double delta = ctx.parameters().scale();
                double levelZeroRoom = ctx.chainPrimes()[0] / delta / 2;
                for (Packing packing : new Packing[] {
                    Packing.columns(TOKENS),
                    Packing.blocks(TOKENS, IN, ctx.parameters().slots())
                }) {
                    SecretKey sk = ctx.generateSecretKey();
                    EvaluationKeys keys = ctx.generateEvaluationKeys(sk, packing.rotationSteps(), false, false);
                    String what = packing.toString();
                    // a run as placed greedily: the map at the level the input had, and its site
                    EncryptedEngine greedy = new EncryptedEngine(
                            ctx, ctx.evaluator(keys), keys, ctx.encryptor(sk), ctx.decryptor(sk), packing);
                    EncryptedTensor g = greedy.linear(greedy.bound(greedy.fromPlain(x), -1, 1), w, bias);
                    String site = greedy.accounting().linearMaps().get(0).site();
                    double bound = greedy.assumedRange(g)[1];
                    assertTrue(
                            bound * 16 > levelZeroRoom,
                            what + ": the output's bound " + bound + " must not fit level 0 at Δ (room " + levelZeroRoom
                                    + ") for this test to mean anything");
                    assertTrue(g.level() > 1, what + ": " + g);
                    assertEquals(0, greedy.decryptionFloor(g), what + ": it can be landed at level 0");

                    EncryptedEngine lowered = new EncryptedEngine(
                            ctx, ctx.evaluator(keys), keys, ctx.encryptor(sk), ctx.decryptor(sk), packing);
                    lowered.follow(RefreshPlan.GREEDY.lowering(site, 1));
                    EncryptedTensor y = lowered.linear(lowered.bound(lowered.fromPlain(x), -1, 1), w, bias);
                    assertEquals(0, y.level(), what + ": " + y);
                    assertTrue(
                            y.scale() < delta && y.scale() >= delta / 1024,
                            what + ": landed on 2^" + Math.log(y.scale()) / Math.log(2) + ", Δ = 2^"
                                    + Math.log(delta) / Math.log(2));
                    assertEquals(0, lowered.decryptionFloor(y), what);
                    double[] got = lowered.toPlain(y).data();
                    for (int i = 0; i < expected.length; i++) {
                        assertEquals(expected[i], got[i], 1e-3 * (1 + Math.abs(expected[i])), what + " entry " + i);
                    }
                }
            }
        }
    }
}
