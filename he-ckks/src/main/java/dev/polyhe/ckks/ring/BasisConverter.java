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

    public BasisConverter(Modulus[] source, Modulus[] target) {
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
            Modulus p = target[t];
            for (int j = 0; j < s; j++) {
                long plain = p.mulMont(qHatMont[t][j], 1);
                hat[t * s + j] = plain;
                hatShoup[t * s + j] = p.shoup(plain);
            }
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
        for (int c = 0; c < x.length; c++) {
            long y = qj.mulShoup(x[c], w, ws);
            scaled[c] = y - (((half - y) >> 63) & q); // y > q/2 becomes y - q
        }
    }

    /**
     * Step 2, per target limb t: out = sum_j y_j · (Q/q_j) mod p_t (y_j signed). Products (each in [0, p_t),
     * p_t &lt; 2^61) are
     * summed four at a time without reduction (the sum stays below 2^63) and reduced once per group.
     */
    public void accumulateTarget(int t, long[][] scaled, long[] out) {
        Modulus p = target[t];
        long pv = p.value();
        long[] row = qHatMont[t];
        int n = out.length;
        int s = row.length;
        for (int g = 0; g < s; g += 4) {
            int size = Math.min(4, s - g);
            long[] y0 = scaled[g];
            long w0 = row[g];
            boolean first = g == 0;
            if (size == 4) {
                long[] y1 = scaled[g + 1];
                long[] y2 = scaled[g + 2];
                long[] y3 = scaled[g + 3];
                long w1 = row[g + 1];
                long w2 = row[g + 2];
                long w3 = row[g + 3];
                for (int c = 0; c < n; c++) {
                    long acc = p.mulMont(y0[c], w0) + p.mulMont(y1[c], w1) + p.mulMont(y2[c], w2)
                            + p.mulMont(y3[c], w3);
                    long r = p.reduce(acc) + (first ? 0 : out[c]) - pv;
                    out[c] = r + ((r >> 63) & pv);
                }
            } else {
                for (int c = 0; c < n; c++) {
                    long acc = 0;
                    for (int j = 0; j < size; j++) {
                        acc += p.mulMont(scaled[g + j][c], row[g + j]);
                    }
                    long r = p.reduce(acc) + (first ? 0 : out[c]) - pv;
                    out[c] = r + ((r >> 63) & pv);
                }
            }
        }
    }
}
