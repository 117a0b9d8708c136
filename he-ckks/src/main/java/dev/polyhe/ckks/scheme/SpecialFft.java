package dev.polyhe.ckks.scheme;

import dev.polyhe.ckks.ring.LimbPool;
import dev.polyhe.ckks.ring.Simd;

/**
 * The "special" FFT of CKKS: evaluates a real polynomial at the primitive 2N-th roots zeta^(5^j), j &lt; N/2
 * (one of each conjugate pair), or inverts that map. Works on any power-of-two slot count n &le; N/2 (sparse
 * packing: the message then lives on X^(N/2n)). The twiddles of every stage are precomputed.
 */
public final class SpecialFft {
    /** Whether the wide stages run on SIMD lanes ({@link SimdFft}). */
    private static final boolean LANES = Simd.available();

    /**
     * The twiddle of butterfly j of the stage of length len, ζ^(2N·(5^j mod 4len)/4len), at [len/2 − 1 + j]: a
     * stage's twiddles do not depend on the slot count, so one table of N/2 serves every size, and the butterflies
     * read it in order instead of working out a modular index (a division) each.
     */
    private final double[] twRe;

    private final double[] twIm;

    public SpecialFft(int logN) {
        int n = 1 << logN;
        int m = 2 * n;
        int half = n / 2;
        twRe = new double[Math.max(1, half)];
        twIm = new double[Math.max(1, half)];
        long g = 1;
        int[] rotGroup = new int[half];
        for (int j = 0; j < half; j++) {
            rotGroup[j] = (int) g;
            g = (g * 5) % m;
        }
        for (int len = 2; len <= half; len <<= 1) {
            int h = len >> 1;
            int lenq = len << 2;
            for (int j = 0; j < h; j++) {
                double angle = 2 * Math.PI * ((long) (rotGroup[j] % lenq) * m / lenq) / m;
                twRe[h - 1 + j] = Math.cos(angle);
                twIm[h - 1 + j] = Math.sin(angle);
            }
        }
    }

    /**
     * The twiddle tables {re, im} (copies): the butterfly of stage length len at offset j within its group uses entry
     * len/2 − 1 + j, and the inverse its conjugate. An executor that encodes on a device runs the same butterflies.
     */
    public double[][] twiddles() {
        return new double[][] {twRe.clone(), twIm.clone()};
    }

    /** Coefficient-side values to slots (decoding direction), in place. */
    void forward(double[] re, double[] im, int size) {
        bitReverse(re, im, size);
        for (int len = 2; len <= size; len <<= 1) {
            int half = len >> 1;
            int tw = half - 1;
            for (int i = 0; i < size; i += len) {
                for (int j = 0; j < half; j++) {
                    double wr = twRe[tw + j];
                    double wi = twIm[tw + j];
                    int a = i + j;
                    int b = a + half;
                    double vr = re[b] * wr - im[b] * wi;
                    double vi = re[b] * wi + im[b] * wr;
                    double ur = re[a];
                    double ui = im[a];
                    re[a] = ur + vr;
                    im[a] = ui + vi;
                    re[b] = ur - vr;
                    im[b] = ui - vi;
                }
            }
        }
    }

    /** Slots to coefficient-side values (encoding direction), in place, including the 1/size factor. */
    void inverse(double[] re, double[] im, int size) {
        inverseBitReversed(re, im, size, null);
        bitReverse(re, im, size);
        double inv = 1.0 / size;
        for (int i = 0; i < size; i++) {
            re[i] *= inv;
            im[i] *= inv;
        }
    }

    /**
     * {@link #inverse} without its last two passes: value i is left at bitReverse(i) and not divided by size, for
     * a caller that reads every value once anyway (the encoder, while rounding). With a pool of
     * {@link LimbPool#ACROSS_CIPHERTEXTS} threads or more, the first stages split their butterflies over its threads,
     * and then the blocks those stages separate (independent from there on) run at once: an encode at a low level
     * has fewer limbs than a many-core server has threads, and the FFT was the part left on one core. (On two cores
     * the split measured no faster than one thread: a millisecond of work against two hand-offs.)
     */
    public void inverseBitReversed(double[] re, double[] im, int size, LimbPool pool) {
        int parts = 1;
        if (pool != null && pool.acrossCiphertexts() && size >= PARALLEL_SIZE) {
            while (parts * 2 <= pool.threads() && parts * 2 <= size / 2) {
                parts *= 2;
            }
        }
        int len = size;
        for (; len >= 2 && size / len < parts; len >>= 1) {
            int stage = len;
            int perGroup = parts / (size / len); // parts sharing one group's butterflies
            int chunk = (len >> 1) / perGroup;
            pool.forEach(parts, p -> {
                int start = (p / perGroup) * stage + (p % perGroup) * chunk;
                butterflies(re, im, stage, start, chunk);
            });
        }
        int block = size / parts;
        int from = len;
        if (parts == 1) {
            stages(re, im, 0, size, from);
        } else {
            pool.forEach(parts, p -> stages(re, im, p * block, block, from));
        }
    }

    /** Below this many slots the FFT is a few tens of microseconds: not worth handing to other threads. */
    private static final int PARALLEL_SIZE = 1 << 12;

    /** The stages of length {@code from} down to 2 on the block [offset, offset + size) (its stages are its own). */
    private void stages(double[] re, double[] im, int offset, int size, int from) {
        for (int len = Math.min(from, size); len >= 2; len >>= 1) {
            int half = len >> 1;
            if (LANES && SimdFft.fits(half)) {
                SimdFft.stage(re, im, twRe, twIm, offset, size, len);
                continue;
            }
            int tw = half - 1;
            for (int i = offset; i < offset + size; i += len) {
                for (int j = 0; j < half; j++) {
                    butterfly(re, im, i + j, i + j + half, tw + j);
                }
            }
        }
    }

    /** {@code count} butterflies of the stage of length len from position a (all in one of its groups). */
    private void butterflies(double[] re, double[] im, int len, int a, int count) {
        int half = len >> 1;
        int tw = half - 1 + a % len;
        for (int k = 0; k < count; k++) {
            butterfly(re, im, a + k, a + k + half, tw + k);
        }
    }

    /** One inverse (Gentleman–Sande) butterfly on a and b with the conjugate of twiddle t. */
    private void butterfly(double[] re, double[] im, int a, int b, int t) {
        double wr = twRe[t];
        double wi = -twIm[t]; // the inverse turns the other way
        double ur = re[a] + re[b];
        double ui = im[a] + im[b];
        double dr = re[a] - re[b];
        double di = im[a] - im[b];
        re[a] = ur;
        im[a] = ui;
        re[b] = dr * wr - di * wi;
        im[b] = dr * wi + di * wr;
    }

    private static void bitReverse(double[] re, double[] im, int size) {
        for (int i = 1, j = 0; i < size; i++) {
            int bit = size >> 1;
            for (; (j & bit) != 0; bit >>= 1) {
                j ^= bit;
            }
            j ^= bit;
            if (i < j) {
                double t = re[i];
                re[i] = re[j];
                re[j] = t;
                t = im[i];
                im[i] = im[j];
                im[j] = t;
            }
        }
    }
}
