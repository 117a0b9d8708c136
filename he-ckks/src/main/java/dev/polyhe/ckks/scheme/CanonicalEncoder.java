package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.ckks.executor.RingExecutor;
import dev.polyhe.ckks.executor.RnsPoly;
import dev.polyhe.ckks.ring.Modulus;
import dev.polyhe.ckks.ring.RnsRing;

/**
 * Encoding through the canonical embedding: slots -&gt; special inverse FFT -&gt; coefficients scaled by Δ and
 * rounded -&gt; RNS -&gt; NTT. Decoding lifts the coefficients through the CRT with just enough primes for the
 * scale (plus 64 bits of head-room), so a deep chain does not pay for primes it does not need. The arithmetic is
 * the host's; plaintexts are handed to the ring executor, where the evaluator uses them.
 */
final class CanonicalEncoder implements Encoder {
    private static final int HEADROOM_BITS = 64;
    private final SchemeParameters params;
    private final RnsRing ring;
    private final SpecialFft fft;
    private final CrtReconstruction crt;
    private final RingExecutor exec;

    CanonicalEncoder(SchemeParameters params, RingExecutor exec) {
        this.params = params;
        this.exec = exec;
        this.ring = params.ring();
        this.fft = new SpecialFft(ring.logN());
        this.crt = new CrtReconstruction(ring);
    }

    @Override
    public Plaintext encode(double[] values, int slots, int level, double scale) {
        return encodeComplex(values, new double[0], slots, level, scale);
    }

    /**
     * The whole encoding on the executor where it offers to ({@link RingExecutor#fromSlots}); else the coefficients
     * on the host (FFT, scale, rounding) and their residues and NTTs where the executor keeps limbs
     * ({@link RingExecutor#fromCoefficients}); coefficients too large for a long are reduced here.
     */
    @Override
    public Plaintext encodeComplex(double[] real, double[] imag, int slots, int level, double scale) {
        double[][] z = slotValues(real, imag, slots, level, scale);
        RnsPoly poly = onExecutor(z, slots, level, scale);
        if (poly == null) {
            Coefficients c = coefficients(z, slots, scale);
            poly = c.fitsLong() ? exec.fromCoefficients(c.integers(), level) : exec.upload(residues(c, level, false));
        }
        return new CkksPlaintext(poly, level, scale, slots, params.hash());
    }

    /**
     * The executor's encoding of the slots z = {re, im}, where every coefficient is sure to fit a long: a
     * coefficient is at most scale times the largest |z| (the inverse FFT averages the slots), which |re| + |im|
     * bounds. Null: the host does the FFT.
     */
    private RnsPoly onExecutor(double[][] z, int slots, int level, double scale) {
        double largest = 0;
        for (int i = 0; i < slots; i++) {
            largest = Math.max(largest, Math.abs(z[0][i]) + Math.abs(z[1][i]));
        }
        return ScaledInteger.fitsLong(scale * largest + 1) ? exec.fromSlots(z[0], z[1], slots, level, scale) : null;
    }

    /**
     * A linear transform's diagonal for {@link RingExecutor#diagonalsRescale}: over Q_level ∪ P where the executor
     * double-hoists, in the form it reads ({@link RingExecutor#uploadDiagonal}).
     */
    CkksDiagonal encodeDiagonal(double[] real, double[] imag, int slots, int level, double scale) {
        Coefficients c = coefficients(slotValues(real, imag, slots, level, scale), slots, scale);
        long[][] limbs = residues(c, level, exec.hoistsDiagonals());
        return new CkksDiagonal(exec.uploadDiagonal(limbs), level, scale, params.hash());
    }

    /** A plaintext's rounded, scaled coefficients, and whether each fits a long exactly. */
    private record Coefficients(double[] values, boolean fitsLong) {
        long[] integers() {
            long[] c = new long[values.length];
            for (int i = 0; i < c.length; i++) {
                c[i] = (long) values[i];
            }
            return c;
        }
    }

    /**
     * The values of all {@code slots} slots as {re, im} (zero beyond those given), after refusing what cannot be
     * encoded, naming it: slot count, values (finite, not more than slots), level, scale.
     */
    private double[][] slotValues(double[] real, double[] imag, int slots, int level, double scale) {
        checkSlots(slots);
        if (real.length > slots || imag.length > slots) {
            throw new IllegalArgumentException(
                    "values: " + Math.max(real.length, imag.length) + " given but only " + slots + " slots");
        }
        if (level < 0 || level > params.maxLevel()) {
            throw new IllegalArgumentException(
                    "level = " + level + " is out of range; allowed: 0 .. " + params.maxLevel());
        }
        checkScale(scale, level);
        double[] re = new double[slots];
        double[] im = new double[slots];
        for (int i = 0; i < real.length; i++) {
            re[i] = checkedFinite(real[i], "real", i);
        }
        for (int i = 0; i < imag.length; i++) {
            im[i] = checkedFinite(imag[i], "imag", i);
        }
        return new double[][] {re, im};
    }

    /** The slots' coefficients: the inverse FFT (in place on z), scaled and rounded. */
    private Coefficients coefficients(double[][] z, int slots, double scale) {
        double[] re = z[0];
        double[] im = z[1];
        fft.inverseBitReversed(re, im, slots, ring.pool());
        int n = ring.n();
        int half = n / 2;
        int gap = half / slots;
        // the FFT's 1/slots folded into the scale (a power of two: the same product, rounded once)
        double factor = scale / slots;
        int unscramble = 32 - Integer.numberOfTrailingZeros(slots);
        double[] coef = new double[n];
        double largest = 0;
        for (int i = 0; i < slots; i++) {
            int from = slots == 1 ? 0 : Integer.reverse(i) >>> unscramble;
            double r = Math.rint(re[from] * factor);
            double m = Math.rint(im[from] * factor);
            coef[i * gap] = r;
            coef[half + i * gap] = m;
            largest = Math.max(largest, Math.max(Math.abs(r), Math.abs(m)));
        }
        // a rounded double below 2^62 converts to a long exactly: one Barrett reduction per limb, no rounding again
        return new Coefficients(coef, ScaledInteger.fitsLong(largest));
    }

    /** The NTT-form limbs on the host: q_0..q_level, and with {@code extended} the special primes after them. */
    private long[][] residues(Coefficients c, int level, boolean extended) {
        int count = level + 1 + (extended ? ring.pCount() : 0);
        if (c.fitsLong()) {
            return ring.fromIntegers(c.integers(), level, count);
        }
        int n = ring.n();
        double[] coef = c.values();
        long[][] limbs = new long[count][n];
        ring.pool().forEach(count, pos -> {
            int l = ring.extendedIndex(level, pos);
            Modulus m = ring.modulus(l);
            long[] limb = limbs[pos];
            ScaledInteger.residues(coef, m, limb);
            ring.ntt(l).forward(limb);
        });
        return limbs;
    }

    @Override
    public double[] decode(Plaintext plaintext) {
        return decodeComplex(plaintext)[0];
    }

    @Override
    public double[][] decodeComplex(Plaintext plaintext) {
        CkksPlaintext pt = OperandCheck.plaintext(plaintext, params.hash());
        int n = ring.n();
        int k = 0;
        double need = Math.max(0, Math.log(pt.scale()) / Math.log(2)) + HEADROOM_BITS;
        while (k < pt.level() && params.logQ(k) < need) {
            k++;
        }
        final int top = k;
        long[][] coef = new long[top + 1][];
        long[][] limbs = exec.download(pt.poly, top + 1);
        ring.pool().forEach(top + 1, l -> {
            coef[l] = limbs[l].clone();
            ring.ntt(l).inverse(coef[l]);
        });
        double[] values = new double[n];
        crt.lift(coef, top, values);
        int slots = pt.slots();
        int half = n / 2;
        int gap = half / slots;
        double[] re = new double[slots];
        double[] im = new double[slots];
        for (int i = 0; i < slots; i++) {
            re[i] = values[i * gap] / pt.scale();
            im[i] = values[half + i * gap] / pt.scale();
        }
        fft.forward(re, im, slots);
        return new double[][] {re, im};
    }

    private void checkSlots(int slots) {
        if (slots < 1 || slots > params.slots() || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException(
                    "slots = " + slots + " must be a power of two in 1 .. " + params.slots());
        }
    }

    private void checkScale(double scale, int level) {
        if (!(scale >= 1) || Double.isInfinite(scale)) {
            throw new IllegalArgumentException("scale = " + scale + " must be a finite number >= 1");
        }
        double logScale = Math.log(scale) / Math.log(2);
        if (logScale + 1 >= params.logQ(level)) {
            throw new HeException(String.format(
                    "scale 2^%.1f does not fit the modulus 2^%.1f of level %d", logScale, params.logQ(level), level));
        }
    }

    private static double checkedFinite(double v, String part, int i) {
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException(part + "[" + i + "] = " + v + " is not a finite number");
        }
        return v;
    }
}
