package dev.polyhe.ckks.ring;

/**
 * Negacyclic NTT of size N modulo one prime, with twiddles in bit-reversed order and their Shoup companions
 * precomputed. Butterflies follow Harvey's lazy reduction: values stay in [0, 4q) (forward) or [0, 2q)
 * (inverse) between layers and are fully reduced once at the end. The forward transform leaves slot i
 * holding a(psi^(2·bitrev(i)+1)); nothing is allocated per call.
 */
public final class NttTables {
    private final Modulus modulus;
    private final int n;
    private final int logN;
    private final long[] psiRev;
    private final long[] psiRevShoup;
    private final long[] psiInvRev;
    private final long[] psiInvRevShoup;
    private final long nInv;
    private final long nInvShoup;
    /** psiInvRev[1]·N^-1, folded into the last inverse layer. */
    private final long lastInv;
    private final long lastInvShoup;

    public NttTables(Modulus modulus, int logN) {
        this.modulus = modulus;
        this.logN = logN;
        this.n = 1 << logN;
        long psi = NttPrimes.primitiveRoot2N(modulus, logN);
        long psiInv = modulus.inv(psi);
        psiRev = new long[n];
        psiInvRev = new long[n];
        psiRevShoup = new long[n];
        psiInvRevShoup = new long[n];
        long pw = 1;
        long pwInv = 1;
        long[] pows = new long[n];
        long[] powsInv = new long[n];
        for (int i = 0; i < n; i++) {
            pows[i] = pw;
            powsInv[i] = pwInv;
            pw = modulus.mul(pw, psi);
            pwInv = modulus.mul(pwInv, psiInv);
        }
        for (int i = 0; i < n; i++) {
            int r = bitReverse(i, logN);
            psiRev[i] = pows[r];
            psiInvRev[i] = powsInv[r];
            psiRevShoup[i] = modulus.shoup(psiRev[i]);
            psiInvRevShoup[i] = modulus.shoup(psiInvRev[i]);
        }
        nInv = modulus.inv(n);
        nInvShoup = modulus.shoup(nInv);
        lastInv = modulus.mul(psiInvRev[1], nInv);
        lastInvShoup = modulus.shoup(lastInv);
    }

    public static int bitReverse(int x, int bits) {
        return bits == 0 ? 0 : Integer.reverse(x) >>> (32 - bits);
    }

    public Modulus modulus() {
        return modulus;
    }

    /**
     * The transform's tables for an executor that runs it elsewhere (a GPU), copies: {psiRev, its Shoup companions,
     * psiInvRev, its Shoup companions}, each of N entries in the order {@link #forward} and {@link #inverse} read them.
     */
    public long[][] twiddles() {
        return new long[][] {psiRev.clone(), psiRevShoup.clone(), psiInvRev.clone(), psiInvRevShoup.clone()};
    }

    /** N^-1 mod q, which the inverse transform's last layer folds in. */
    public long nInverse() {
        return nInv;
    }

    /** psiInvRev[1]·N^-1 mod q: the last inverse layer's twiddle with N^-1 folded in. */
    public long lastInverse() {
        return lastInv;
    }

    public int size() {
        return n;
    }

    public int logN() {
        return logN;
    }

    /** In place: coefficients in [0, q) to evaluations in [0, q). */
    public void forward(long[] a) {
        final long q = modulus.value();
        final long twoQ = 2 * q;
        if (n == 1) {
            return;
        }
        int t = n;
        for (int m = 1; m < n >>> 1; m <<= 1) {
            t >>>= 1;
            for (int i = 0; i < m; i++) {
                final int j1 = 2 * i * t;
                final int j2 = j1 + t;
                final long w = psiRev[m + i];
                final long ws = psiRevShoup[m + i];
                for (int j = j1; j < j2; j++) {
                    long x = a[j];
                    x -= twoQ;
                    x += (x >> 63) & twoQ; // x in [0, 2q)
                    long y = a[j + t];
                    long hi = Math.multiplyHigh(y, ws) + ((ws >> 63) & y);
                    long v = y * w - hi * q; // [0, 2q)
                    a[j] = x + v;
                    a[j + t] = x - v + twoQ;
                }
            }
        }
        // last layer (t = 1): adjacent pairs, with the final reduction to [0, q) folded in
        final int half = n >>> 1;
        for (int i = 0; i < half; i++) {
            final long w = psiRev[half + i];
            final long ws = psiRevShoup[half + i];
            final int j = 2 * i;
            long x = a[j];
            x -= twoQ;
            x += (x >> 63) & twoQ;
            long y = a[j + 1];
            long hi = Math.multiplyHigh(y, ws) + ((ws >> 63) & y);
            long v = y * w - hi * q;
            long r0 = x + v - twoQ;
            r0 += (r0 >> 63) & twoQ;
            r0 -= q;
            r0 += (r0 >> 63) & q;
            long r1 = x - v;
            r1 += (r1 >> 63) & twoQ;
            r1 -= q;
            r1 += (r1 >> 63) & q;
            a[j] = r0;
            a[j + 1] = r1;
        }
    }

    /** In place: evaluations in [0, q) back to coefficients in [0, q), including the 1/N factor. */
    public void inverse(long[] a) {
        final long q = modulus.value();
        final long twoQ = 2 * q;
        // first layer (t = 1): adjacent pairs
        if (n > 2) {
            final int h0 = n >>> 1;
            for (int i = 0; i < h0; i++) {
                final long w = psiInvRev[h0 + i];
                final long ws = psiInvRevShoup[h0 + i];
                final int j = 2 * i;
                long x = a[j];
                long y = a[j + 1];
                long s = x + y - twoQ;
                s += (s >> 63) & twoQ;
                long d = x - y + twoQ;
                long hi = Math.multiplyHigh(d, ws) + ((ws >> 63) & d);
                a[j] = s;
                a[j + 1] = d * w - hi * q;
            }
        }
        int t = 2;
        for (int m = n >>> 1; m > 2; m >>>= 1) {
            final int h = m >>> 1;
            int j1 = 0;
            for (int i = 0; i < h; i++) {
                final int j2 = j1 + t;
                final long w = psiInvRev[h + i];
                final long ws = psiInvRevShoup[h + i];
                for (int j = j1; j < j2; j++) {
                    long x = a[j];
                    long y = a[j + t];
                    long s = x + y - twoQ;
                    s += (s >> 63) & twoQ;
                    long d = x - y + twoQ;
                    long hi = Math.multiplyHigh(d, ws) + ((ws >> 63) & d);
                    a[j] = s;
                    a[j + t] = d * w - hi * q;
                }
                j1 += 2 * t;
            }
            t <<= 1;
        }
        // last layer (m = 2, one twiddle) with N^-1 folded in
        final int half = n >>> 1;
        for (int j = 0; j < half; j++) {
            long x = a[j];
            long y = a[j + half];
            long s = x + y; // < 4q
            long hs = Math.multiplyHigh(s, nInvShoup) + ((nInvShoup >> 63) & s);
            long r0 = s * nInv - hs * q;
            long d = x - y + twoQ;
            long hd = Math.multiplyHigh(d, lastInvShoup) + ((lastInvShoup >> 63) & d);
            long r1 = d * lastInv - hd * q;
            r0 -= q;
            r0 += (r0 >> 63) & q;
            r1 -= q;
            r1 += (r1 >> 63) & q;
            a[j] = r0;
            a[j + half] = r1;
        }
    }
}
