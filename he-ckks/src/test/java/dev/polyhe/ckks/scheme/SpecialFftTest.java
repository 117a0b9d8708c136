package dev.polyhe.ckks.scheme;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.ckks.ring.LimbPool;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The encoding FFT split over a pool's threads computes exactly what it computes on one (the same butterflies on
 * the same values), so do its stages on SIMD lanes, and the encoder's rounding, now done once before the limbs, is
 * still exact past 2^62.
 */
class SpecialFftTest {
    private static final int LOG_N = 14;

    @Test
    void theSplitInverseIsTheSameArithmeticAsTheSerialOne() {
        SpecialFft fft = new SpecialFft(LOG_N);
        Random r = new Random(3);
        for (int size : new int[] {1 << 12, 1 << 13}) {
            double[] re = new double[size];
            double[] im = new double[size];
            for (int i = 0; i < size; i++) {
                re[i] = r.nextGaussian();
                im[i] = r.nextGaussian();
            }
            double[] serialRe = re.clone();
            double[] serialIm = im.clone();
            fft.inverseBitReversed(serialRe, serialIm, size, null);
            for (int threads : new int[] {2, 4, 8}) {
                try (LimbPool pool = new LimbPool(threads)) {
                    double[] pr = re.clone();
                    double[] pi = im.clone();
                    fft.inverseBitReversed(pr, pi, size, pool);
                    assertArrayEquals(serialRe, pr, 0, size + " slots on " + threads + " threads");
                    assertArrayEquals(serialIm, pi, 0, size + " slots on " + threads + " threads");
                }
            }
            // and it is the inverse of the forward transform, once unscrambled and divided by the size
            double[] back = re.clone();
            double[] backIm = im.clone();
            fft.inverse(back, backIm, size);
            fft.forward(back, backIm, size);
            for (int i = 0; i < size; i++) {
                assertEquals(re[i], back[i], 1e-12);
                assertEquals(im[i], backIm[i], 1e-12);
            }
        }
    }

    /** The stages on lanes ({@link SimdFft}) give the scalar butterflies' values bit for bit, at every size. */
    @Test
    void theInverseOnLanesIsTheScalarButterfliesBitForBit() {
        assertTrue(dev.polyhe.ckks.ring.Simd.available(), "the tests run with --add-modules jdk.incubator.vector");
        SpecialFft fft = new SpecialFft(LOG_N);
        double[][] tw = fft.twiddles();
        Random r = new Random(4);
        for (int size = 2; size <= 1 << (LOG_N - 1); size <<= 1) {
            double[] re = new double[size];
            double[] im = new double[size];
            for (int i = 0; i < size; i++) {
                re[i] = r.nextGaussian();
                im[i] = r.nextGaussian();
            }
            double[] sr = re.clone();
            double[] si = im.clone();
            for (int len = size; len >= 2; len >>= 1) {
                int half = len >> 1;
                for (int i = 0; i < size; i += len) {
                    for (int j = 0; j < half; j++) {
                        double wr = tw[0][half - 1 + j];
                        double wi = -tw[1][half - 1 + j];
                        int a = i + j;
                        int b = a + half;
                        double dr = sr[a] - sr[b];
                        double di = si[a] - si[b];
                        sr[a] = sr[a] + sr[b];
                        si[a] = si[a] + si[b];
                        sr[b] = dr * wr - di * wi;
                        si[b] = dr * wi + di * wr;
                    }
                }
            }
            fft.inverseBitReversed(re, im, size, null);
            assertArrayEquals(sr, re, "real parts, " + size + " slots");
            assertArrayEquals(si, im, "imaginary parts, " + size + " slots");
        }
    }

    @Test
    void encodingRoundsExactlyBelowAndAbove2To62() {
        // two 60-bit primes: a scale of 2^50 on values of 2^24 puts coefficients near 2^67, past the long range
        CkksParameters p =
                new CkksParameters(LOG_N, List.of(60, 60), List.of(60), 2, 50, 0, SecurityLevel.INSECURE_TEST);
        try (CkksContext ctx = new CkksContext(p, 2)) {
            int slots = 1 << (LOG_N - 1);
            Random r = new Random(5);
            for (double magnitude : new double[] {1, 0x1p24}) {
                double[] v = new double[slots];
                for (int i = 0; i < slots; i++) {
                    v[i] = magnitude * (2 * r.nextDouble() - 1);
                }
                Plaintext pt = ctx.encoder().encode(v, slots, 1, p.scale());
                double[] back = ctx.encoder().decode(pt);
                double worst = 0;
                for (int i = 0; i < slots; i++) {
                    worst = Math.max(worst, Math.abs(back[i] - v[i]));
                }
                assertTrue(worst < magnitude * 1e-9 + 1e-9, "values of " + magnitude + ": error " + worst);
            }
        }
    }
}
