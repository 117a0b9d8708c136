package dev.polyhe.ckks.scheme;

import dev.polyhe.ckks.ring.Modulus;
import dev.polyhe.ckks.ring.RnsRing;
import java.math.BigInteger;

/**
 * Lifts RNS coefficients to centred values as doubles with full relative precision: Garner's algorithm gives
 * the exact mixed-radix digits, the sign is decided digit-wise against floor(Q/2), and Horner's rule in double
 * then loses nothing to cancellation.
 */
final class CrtReconstruction {
    private final RnsRing ring;
    private final int primes;
    /** [i][j] = q_j mod q_i in Montgomery form (j &lt; i). */
    private final long[][] qjMont;
    /** (q_0 ... q_{i-1})^-1 mod q_i, in Montgomery form. */
    private final long[] prefixInvMont;
    /** [k][i]: mixed-radix digits of floor(Q_k / 2) over q_0..q_k. */
    private final long[][] halfDigits;

    private final double[] qd;

    CrtReconstruction(RnsRing ring) {
        this.ring = ring;
        this.primes = ring.qCount();
        qjMont = new long[primes][];
        prefixInvMont = new long[primes];
        qd = new double[primes];
        for (int i = 0; i < primes; i++) {
            Modulus mi = ring.modulus(i);
            qd[i] = mi.value();
            qjMont[i] = new long[i];
            long prod = 1;
            for (int j = 0; j < i; j++) {
                long qj = mi.reduce(ring.modulus(j).value());
                qjMont[i][j] = mi.toMont(qj);
                prod = mi.mul(prod, qj);
            }
            prefixInvMont[i] = i == 0 ? 0 : mi.toMont(mi.inv(prod));
        }
        halfDigits = new long[primes][];
        BigInteger q = BigInteger.ONE;
        for (int k = 0; k < primes; k++) {
            q = q.multiply(BigInteger.valueOf(ring.modulus(k).value()));
            BigInteger half = q.shiftRight(1);
            long[] digits = new long[k + 1];
            for (int i = 0; i <= k; i++) {
                BigInteger[] qr = half.divideAndRemainder(
                        BigInteger.valueOf(ring.modulus(i).value()));
                digits[i] = qr[1].longValueExact();
                half = qr[0];
            }
            halfDigits[k] = digits;
        }
    }

    /**
     * @param coef coefficient-form limbs 0..k (at least)
     * @param k index of the last prime to use
     * @param out receives the centred integers (mod Q_k) as doubles
     */
    void lift(long[][] coef, int k, double[] out) {
        int n = ring.n();
        long[] half = halfDigits[k];
        int chunks = Math.min(ring.pool().threads(), Math.max(1, n / 1024));
        int per = (n + chunks - 1) / chunks;
        ring.pool().forEach(chunks, chunk -> {
            long[] v = new long[k + 1];
            for (int c = chunk * per; c < Math.min(n, (chunk + 1) * per); c++) {
                liftOne(coef, c, k, v, half, out);
            }
        });
    }

    private void liftOne(long[][] coef, int c, int k, long[] v, long[] half, double[] out) {
        v[0] = coef[0][c];
        for (int i = 1; i <= k; i++) {
            Modulus mi = ring.modulus(i);
            long[] qj = qjMont[i];
            long s = mi.reduce(v[i - 1]);
            for (int j = i - 2; j >= 0; j--) {
                s = mi.add(mi.mulMont(s, qj[j]), mi.reduce(v[j]));
            }
            v[i] = mi.mulMont(mi.sub(coef[i][c], s), prefixInvMont[i]);
        }
        boolean negative = false;
        for (int i = k; i >= 0; i--) {
            if (v[i] != half[i]) {
                negative = v[i] > half[i];
                break;
            }
        }
        if (negative) {
            // Q - x = (Q - 1 - x) + 1, digit-wise: (q_i - 1 - v_i), then add one with carry
            for (int i = 0; i <= k; i++) {
                v[i] = ring.modulus(i).value() - 1 - v[i];
            }
            for (int i = 0; i <= k; i++) {
                v[i]++;
                if (v[i] < ring.modulus(i).value()) {
                    break;
                }
                v[i] = 0;
            }
        }
        double value = v[k];
        for (int i = k - 1; i >= 0; i--) {
            value = value * qd[i] + v[i];
        }
        out[c] = negative ? -value : value;
    }
}
