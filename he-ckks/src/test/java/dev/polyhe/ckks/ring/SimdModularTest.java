package dev.polyhe.ckks.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The vector residues are the scalar ones ({@link Modulus#reduceSigned}), at the edges of the range too, and so are
 * the products by a constant ({@link Modulus#mulShoup}).
 */
class SimdModularTest {
    @Test
    void residuesOfSignedIntegersMatchTheScalarReduction() {
        assertTrue(Simd.available(), Simd.describe());
        Random r = new Random(11);
        for (int bits : new int[] {30, 40, 52, 60}) {
            Modulus m = new Modulus(NttPrimes.generate(12, List.of(bits), Set.of())[0]);
            long q = m.value();
            long[] x = new long[4096];
            long[] edges = {0, 1, -1, q - 1, q, q + 1, -q, -q + 1, -q - 1, 2 * q, (1L << 62) - 1, -(1L << 62) + 1};
            for (int c = 0; c < x.length; c++) {
                x[c] = c < edges.length ? edges[c] : r.nextLong() >> (1 + r.nextInt(40));
            }
            long[] out = new long[x.length];
            SimdModular.residues(x, m, out);
            for (int c = 0; c < x.length; c++) {
                assertEquals(m.reduceSigned(x[c]), out[c], bits + "-bit prime, x = " + x[c]);
            }
        }
    }

    @Test
    void productsByAConstantMatchShoupsScalarProduct() {
        assertTrue(Simd.available(), Simd.describe());
        Random r = new Random(12);
        for (int bits : new int[] {30, 40, 52, 60}) {
            Modulus m = new Modulus(NttPrimes.generate(12, List.of(bits), Set.of())[0]);
            long q = m.value();
            long[] x = new long[4096];
            long[] edges = {0, 1, q - 1, q - 2, q / 2};
            for (int c = 0; c < x.length; c++) {
                x[c] = c < edges.length ? edges[c] : Math.floorMod(r.nextLong(), q);
            }
            for (long w : new long[] {0, 1, q - 1, Math.floorMod(r.nextLong(), q)}) {
                long ws = m.shoup(w);
                long[] out = new long[x.length];
                SimdModular.timesConstant(x, w, ws, q, out);
                for (int c = 0; c < x.length; c++) {
                    assertEquals(m.mulShoup(x[c], w, ws), out[c], bits + "-bit prime, x = " + x[c] + ", w = " + w);
                }
            }
        }
    }
}
