package dev.polyhe.ckks.ring;

/**
 * Divides an RNS polynomial (NTT form, limbs 0..level) by its last prime q_l with rounding and drops that
 * prime: out = (x + h - [x + h]_{q_l}) / q_l with h = floor(q_l/2), which is round(x / q_l) exactly. One
 * inverse NTT of the last limb and one forward NTT per remaining limb.
 */
public final class RnsRescaler {
    private final RnsRing ring;
    /** [l][i] = q_l^-1 mod q_i and its Shoup companion. */
    private final long[][] inv;

    private final long[][] invShoup;

    public RnsRescaler(RnsRing ring) {
        this.ring = ring;
        int qc = ring.qCount();
        inv = new long[qc][];
        invShoup = new long[qc][];
        for (int l = 1; l < qc; l++) {
            inv[l] = new long[l];
            invShoup[l] = new long[l];
            for (int i = 0; i < l; i++) {
                Modulus m = ring.modulus(i);
                inv[l][i] = m.inv(m.reduce(ring.modulus(l).value()));
                invShoup[l][i] = m.shoup(inv[l][i]);
            }
        }
    }

    /**
     * Rescales the polynomials together (a ciphertext's c0 and c1), limb by limb, so each prime's NTT tables
     * are fetched from memory once for all of them.
     */
    public long[][][] rescale(long[][][] polys, int level) {
        if (level < 1) {
            throw new IllegalArgumentException("rescale needs level >= 1, got " + level);
        }
        int n = ring.n();
        int count = polys.length;
        // Rounding instead of flooring: work on x + h with h = floor(q_l / 2), i.e. out = (x + h - [x + h]_{q_l}) /
        // q_l.
        long ql = ring.modulus(level).value();
        long h = ql >>> 1;
        long[][] last = new long[count][];
        for (int k = 0; k < count; k++) {
            long[] l = polys[k][level].clone();
            ring.ntt(level).inverse(l);
            for (int c = 0; c < n; c++) {
                long r = l[c] + h - ql;
                l[c] = r + ((r >> 63) & ql);
            }
            last[k] = l;
        }
        long[][][] out = new long[count][level][];
        long[] w = inv[level];
        long[] ws = invShoup[level];
        ring.pool().forEach(level, i -> {
            Modulus m = ring.modulus(i);
            long q = m.value();
            long hi = m.reduce(h);
            long wi = w[i];
            long wsi = ws[i];
            boolean close = ql < 2 * q; // then one conditional subtraction reduces [0, q_l) modulo q_i
            for (int k = 0; k < count; k++) {
                long[] lk = last[k];
                long[] t = new long[n];
                if (close) {
                    for (int c = 0; c < n; c++) {
                        long v = lk[c] - q;
                        v += (v >> 63) & q;
                        long r = v - hi; // [x + h]_{q_l} - h, modulo q_i
                        t[c] = r + ((r >> 63) & q);
                    }
                } else {
                    for (int c = 0; c < n; c++) {
                        long r = m.reduce(lk[c]) - hi;
                        t[c] = r + ((r >> 63) & q);
                    }
                }
                ring.ntt(i).forward(t);
                long[] xi = polys[k][i];
                for (int c = 0; c < n; c++) {
                    long d = xi[c] - t[c];
                    d += (d >> 63) & q;
                    t[c] = m.mulShoup(d, wi, wsi);
                }
                out[k][i] = t;
            }
        });
        return out;
    }
}
