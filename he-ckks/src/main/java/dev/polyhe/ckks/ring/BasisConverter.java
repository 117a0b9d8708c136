package dev.polyhe.ckks.ring;

/**
 * Fast (approximate) basis conversion: given x in coefficient form modulo the source primes q_j, computes
 * sum_j [x_j · (Q/q_j)^-1]_{q_j} · (Q/q_j) modulo each target prime. The result is x + u·Q with a small
 * integer u, which hybrid key switching tolerates by design. The bracket is taken centred, in (-q_j/2, q_j/2]:
 * then u is centred on zero too. With the usual [0, q_j) it averages (sources - 1)/2, and that bias, a constant
 * polynomial after ModDown, multiplied by s, concentrates in a few slots and costs several bits of precision.
 */
public final class BasisConverter {
    private final Modulus[] source;
    private final Modulus[] target;
    private final long[] qHatInv;
    private final long[] qHatInvShoup;
    /** [t][j]: (Q/q_j) mod p_t in Montgomery form, so one mulMont gives the plain product. */
    private final long[][] qHatMont;
    /** [t][j]: (Q/q_j) mod p_t plain, and its Shoup companions: the SIMD sum's and {@link #tables()}. */
    private final long[][] qHat;

    private final long[][] qHatShoup;
    /** Whether {@link #scaleSource} and {@link #accumulateTarget} run on SIMD lanes (where a limb splits into them). */
    private final boolean simd;

    public BasisConverter(Modulus[] source, Modulus[] target) {
        this(source, target, Simd.available());
    }

    /** With {@code simd} false, the scalar sums only (for comparing the two). */
    BasisConverter(Modulus[] source, Modulus[] target, boolean simd) {
        this.simd = simd;
        this.source = source.clone();
        this.target = target.clone();
        int s = source.length;
        qHatInv = new long[s];
        qHatInvShoup = new long[s];
        for (int j = 0; j < s; j++) {
            Modulus qj = source[j];
            long prod = 1;
            for (int i = 0; i < s; i++) {
                if (i != j) {
                    prod = qj.mul(prod, qj.reduce(source[i].value()));
                }
            }
            qHatInv[j] = qj.inv(prod);
            qHatInvShoup[j] = qj.shoup(qHatInv[j]);
        }
        qHatMont = new long[target.length][s];
        qHat = new long[target.length][s];
        qHatShoup = new long[target.length][s];
        for (int t = 0; t < target.length; t++) {
            Modulus p = target[t];
            for (int j = 0; j < s; j++) {
                long prod = 1;
                for (int i = 0; i < s; i++) {
                    if (i != j) {
                        prod = p.mul(prod, p.reduce(source[i].value()));
                    }
                }
                qHatMont[t][j] = p.toMont(prod);
                qHat[t][j] = prod;
                qHatShoup[t][j] = p.shoup(prod);
            }
        }
    }

    public int sourceCount() {
        return source.length;
    }

    public int targetCount() {
        return target.length;
    }

    /**
     * The converter's constants for an executor that runs it elsewhere (a GPU), copies: {(Q/q_j)^-1 mod q_j, their
     * Shoup companions} per source j, then {(Q/q_j) mod p_t, their Shoup companions modulo p_t} row by row (index
     * t·sources + j), plain, not in Montgomery form.
     */
    public long[][] tables() {
        int s = source.length;
        long[] hat = new long[target.length * s];
        long[] hatShoup = new long[target.length * s];
        for (int t = 0; t < target.length; t++) {
            System.arraycopy(qHat[t], 0, hat, t * s, s);
            System.arraycopy(qHatShoup[t], 0, hatShoup, t * s, s);
        }
        return new long[][] {qHatInv.clone(), qHatInvShoup.clone(), hat, hatShoup};
    }

    /**
     * Step 1, per source limb: y_j = x_j · (Q/q_j)^-1 mod q_j, centred into (-q_j/2, q_j/2], written into
     * {@code scaled} (which may be x itself).
     */
    public void scaleSource(int j, long[] x, long[] scaled) {
        Modulus qj = source[j];
        long q = qj.value();
        long half = q >>> 1;
        long w = qHatInv[j];
        long ws = qHatInvShoup[j];
        if (simd && SimdBasisConversion.fits(x.length)) {
            SimdBasisConversion.scale(x, q, w, ws, scaled);
            return;
        }
        for (int c = 0; c < x.length; c++) {
            long y = qj.mulShoup(x[c], w, ws);
            scaled[c] = y - (((half - y) >> 63) & q); // y > q/2 becomes y - q
        }
    }

    /**
     * Step 2, per target limb t: out = sum_j y_j · (Q/q_j) mod p_t (y_j signed). The Montgomery products are
     * left unreduced, in (−p_t, p_t), and summed four at a time (p_t &lt; 2^61 keeps the sum inside a long); a
     * negative sum is lifted by 4·p_t and the group reduced once. Sources come in digits of a few primes (7 at
     * N16-boot-128: a group of four and one of three), so the groups of one to three have loops of their own: a
     * loop over j inside the coefficient loop reads scaled[j] per coefficient and is not unrolled.
     */
    public void accumulateTarget(int t, long[][] scaled, long[] out) {
        Modulus p = target[t];
        if (simd && SimdBasisConversion.fits(out.length) && scaled.length > 0) {
            SimdBasisConversion.accumulate(p.value(), scaled, qHat[t], qHatShoup[t], out);
            return;
        }
        long[] row = qHatMont[t];
        int s = row.length;
        for (int g = 0; g < s; g += 4) {
            boolean first = g == 0;
            switch (Math.min(4, s - g)) {
                case 4 ->
                    accumulate4(
                            p,
                            scaled[g],
                            scaled[g + 1],
                            scaled[g + 2],
                            scaled[g + 3],
                            row[g],
                            row[g + 1],
                            row[g + 2],
                            row[g + 3],
                            out,
                            first);
                case 3 ->
                    accumulate3(p, scaled[g], scaled[g + 1], scaled[g + 2], row[g], row[g + 1], row[g + 2], out, first);
                case 2 -> accumulate2(p, scaled[g], scaled[g + 1], row[g], row[g + 1], out, first);
                default -> accumulate1(p, scaled[g], row[g], out, first);
            }
        }
    }

    private static void accumulate4(
            Modulus p,
            long[] y0,
            long[] y1,
            long[] y2,
            long[] y3,
            long w0,
            long w1,
            long w2,
            long w3,
            long[] out,
            boolean first) {
        long pv = p.value();
        long bias = 4 * pv;
        for (int c = 0; c < out.length; c++) {
            long acc = p.mulMontLazy(y0[c], w0)
                    + p.mulMontLazy(y1[c], w1)
                    + p.mulMontLazy(y2[c], w2)
                    + p.mulMontLazy(y3[c], w3);
            long r = p.reduce(acc + ((acc >> 63) & bias)) + (first ? 0 : out[c]) - pv;
            out[c] = r + ((r >> 63) & pv);
        }
    }

    private static void accumulate3(
            Modulus p, long[] y0, long[] y1, long[] y2, long w0, long w1, long w2, long[] out, boolean first) {
        long pv = p.value();
        long bias = 3 * pv;
        for (int c = 0; c < out.length; c++) {
            long acc = p.mulMontLazy(y0[c], w0) + p.mulMontLazy(y1[c], w1) + p.mulMontLazy(y2[c], w2);
            long r = p.reduce(acc + ((acc >> 63) & bias)) + (first ? 0 : out[c]) - pv;
            out[c] = r + ((r >> 63) & pv);
        }
    }

    /** Two products sum below 2p: a conditional subtraction reduces them, no Barrett step. */
    private static void accumulate2(Modulus p, long[] y0, long[] y1, long w0, long w1, long[] out, boolean first) {
        long pv = p.value();
        for (int c = 0; c < out.length; c++) {
            long r = p.mulMont(y0[c], w0) + p.mulMont(y1[c], w1) - pv;
            r += (r >> 63) & pv;
            r += (first ? 0 : out[c]) - pv;
            out[c] = r + ((r >> 63) & pv);
        }
    }

    private static void accumulate1(Modulus p, long[] y0, long w0, long[] out, boolean first) {
        long pv = p.value();
        for (int c = 0; c < out.length; c++) {
            long r = p.mulMont(y0[c], w0) + (first ? 0 : out[c]) - pv;
            out[c] = r + ((r >> 63) & pv);
        }
    }
}
