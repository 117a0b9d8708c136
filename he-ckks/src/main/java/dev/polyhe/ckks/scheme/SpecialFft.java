package dev.polyhe.ckks.scheme;

/**
 * The "special" FFT of CKKS: evaluates a real polynomial at the primitive 2N-th roots zeta^(5^j), j &lt; N/2
 * (one of each conjugate pair), or inverts that map. Works on any power-of-two slot count n &le; N/2 (sparse
 * packing: the message then lives on X^(N/2n)). The twiddles of every stage are precomputed.
 */
final class SpecialFft {
    /**
     * The twiddle of butterfly j of the stage of length len, ζ^(2N·(5^j mod 4len)/4len), at [len/2 − 1 + j]: a
     * stage's twiddles do not depend on the slot count, so one table of N/2 serves every size, and the butterflies
     * read it in order instead of working out a modular index (a division) each.
     */
    private final double[] twRe;
    private final double[] twIm;

    SpecialFft(int logN) {
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
        for (int len = size; len >= 2; len >>= 1) {
            int half = len >> 1;
            int tw = half - 1;
            for (int i = 0; i < size; i += len) {
                for (int j = 0; j < half; j++) {
                    double wr = twRe[tw + j];
                    double wi = -twIm[tw + j]; // the inverse turns the other way
                    int a = i + j;
                    int b = a + half;
                    double ur = re[a] + re[b];
                    double ui = im[a] + im[b];
                    double dr = re[a] - re[b];
                    double di = im[a] - im[b];
                    re[a] = ur;
                    im[a] = ui;
                    re[b] = dr * wr - di * wi;
                    im[b] = dr * wi + di * wr;
                }
            }
        }
        bitReverse(re, im, size);
        double inv = 1.0 / size;
        for (int i = 0; i < size; i++) {
            re[i] *= inv;
            im[i] *= inv;
        }
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
