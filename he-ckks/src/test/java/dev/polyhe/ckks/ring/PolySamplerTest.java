package dev.polyhe.ckks.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PolySamplerTest {
    @Test
    void gaussianHasSigma32AndTheTailCut() {
        long[] e = new long[1 << 18];
        new PolySampler().gaussian(e);
        double sum = 0;
        double sq = 0;
        long max = 0;
        for (long v : e) {
            sum += v;
            sq += (double) v * v;
            max = Math.max(max, Math.abs(v));
        }
        double mean = sum / e.length;
        double sd = Math.sqrt(sq / e.length - mean * mean);
        assertTrue(Math.abs(mean) < 0.05, "mean " + mean);
        assertTrue(Math.abs(sd - PolySampler.SIGMA) < 0.05, "standard deviation " + sd);
        assertTrue(max <= 19 && max >= 12, "largest sample " + max);
    }

    @Test
    void ternaryUniformSparseAndSecretSamplers() {
        long[] t = new long[30000];
        PolySampler.forSecrets().ternary(t);
        int[] counts = new int[3];
        for (long v : t) {
            counts[(int) v + 1]++;
        }
        for (int c : counts) {
            assertTrue(Math.abs(c - 10000) < 600, "ternary counts " + java.util.Arrays.toString(counts));
        }
        long[] s = new long[4096];
        new PolySampler().sparseTernary(192, s);
        int weight = 0;
        for (long v : s) {
            assertTrue(v >= -1 && v <= 1);
            weight += v != 0 ? 1 : 0;
        }
        assertEquals(192, weight);
        Modulus m = new Modulus(NttPrimes.generate(12, List.of(50), Set.of())[0]);
        long[] u = new long[10000];
        new PolySampler().uniform(m, u);
        boolean high = false;
        for (long v : u) {
            assertTrue(v >= 0 && v < m.value());
            high |= v > m.value() / 2;
        }
        assertTrue(high, "uniform samples reach the upper half");
    }
}
