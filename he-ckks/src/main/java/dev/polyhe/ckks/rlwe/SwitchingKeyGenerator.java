package dev.polyhe.ckks.rlwe;

import dev.polyhe.ckks.ring.Modulus;
import dev.polyhe.ckks.ring.PolySampler;
import dev.polyhe.ckks.ring.RnsRing;

/** Generates hybrid key-switching keys s' -&gt; s (relinearization: s' = s^2; rotation: s' = s(X^g)). */
public final class SwitchingKeyGenerator {
    private final RnsRing ring;
    private final GadgetDecomposition gadget;
    /** P mod q_i for every ciphertext prime. */
    private final long[] pModQ;

    public SwitchingKeyGenerator(RnsRing ring, GadgetDecomposition gadget) {
        this.ring = ring;
        this.gadget = gadget;
        pModQ = new long[ring.qCount()];
        for (int i = 0; i < ring.qCount(); i++) {
            Modulus q = ring.modulus(i);
            long prod = 1;
            for (int t = 0; t < ring.pCount(); t++) {
                prod = q.mul(prod, q.reduce(ring.modulus(ring.pIndex(t)).value()));
            }
            pModQ[i] = prod;
        }
    }

    /** @param sPrime the source secret in NTT form modulo every prime of Q ∪ P */
    public SwitchingKey generate(RlweSecret s, long[][] sPrime) {
        int total = ring.qCount() + ring.pCount();
        int[] all = RnsRing.prefix(total - 1);
        long[][][][] key = new long[gadget.digitCount()][][][];
        for (int j = 0; j < key.length; j++) {
            key[j] = digit(s, sPrime, j, all, pModQ);
        }
        return new SwitchingKey(key);
    }

    /**
     * A key for level 0 only, on q_0 and the first special prime p_0 alone: b = -a·s + e + p_0·s' there, and
     * no limb of q_1 .. q_L or of the other special primes is made at all (null). Not publishing them is the
     * point: the key is then an RLWE sample modulo q_0·p_0 alone (about 2^112 on N16-boot-128), small enough
     * for a sparse secret s to be safe, as in the sparse-secret encapsulation's own parameter sets.
     */
    public SwitchingKey generateForLevelZero(RlweSecret s, long[][] sPrime) {
        int p0 = ring.pIndex(0);
        Modulus q0 = ring.modulus(0);
        long[] factor = new long[ring.qCount()];
        factor[0] = q0.reduce(ring.modulus(p0).value());
        return new SwitchingKey(new long[][][][] {digit(s, sPrime, 0, new int[] {0, p0}, factor)});
    }

    /**
     * (b, a) of digit j on the given primes: b = -a·s + e + F·[s']_{digit j}, NTT and Montgomery form, where F is
     * the product of the special primes the key is for ({@code factorModQ}: F mod q_i).
     */
    private long[][][] digit(RlweSecret s, long[][] sPrime, int j, int[] limbs, long[] factorModQ) {
        int total = ring.qCount() + ring.pCount();
        long[][] sNtt = s.ntt();
        PolySampler sampler = new PolySampler();
        long[][] a = new long[total][];
        long[][] b = new long[total][];
        long[] e = new long[ring.n()];
        sampler.gaussian(e);
        long[][] eLimbs = new long[limbs.length][ring.n()];
        ring.fromSigned(e, eLimbs, limbs); // compact: eLimbs[k] is the limb of prime limbs[k]
        for (int k = 0; k < limbs.length; k++) {
            int i = limbs[k];
            a[i] = new long[ring.n()];
            sampler.uniform(ring.modulus(i), a[i]);
            b[i] = eLimbs[k];
        }
        final int first = gadget.firstPrime(j);
        final int end = gadget.endPrime(j, ring.qCount() - 1);
        ring.pool().forEach(limbs.length, k -> {
            int i = limbs[k];
            Modulus m = ring.modulus(i);
            long[] bi = b[i];
            long[] ai = a[i];
            long[] si = sNtt[i];
            boolean inDigit = i >= first && i < end;
            long pq = inDigit ? m.toMont(factorModQ[i]) : 0;
            long[] spi = sPrime[i];
            for (int c = 0; c < bi.length; c++) {
                long v = m.sub(bi[c], m.mul(ai[c], si[c]));
                if (inDigit) {
                    v = m.add(v, m.mulMont(spi[c], pq));
                }
                bi[c] = m.toMont(v);
                ai[c] = m.toMont(ai[c]);
            }
        });
        return new long[][][] {b, a};
    }
}
