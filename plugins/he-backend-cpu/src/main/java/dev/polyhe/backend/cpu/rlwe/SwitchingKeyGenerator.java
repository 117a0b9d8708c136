package dev.polyhe.backend.cpu.rlwe;

import dev.polyhe.backend.cpu.ring.Modulus;
import dev.polyhe.backend.cpu.ring.PolySampler;
import dev.polyhe.backend.cpu.ring.RnsRing;

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
        int digits = gadget.digitCount();
        int[] all = RnsRing.prefix(total - 1);
        long[][][][] key = new long[digits][2][][];
        long[][] sNtt = s.ntt();
        for (int j = 0; j < digits; j++) {
            PolySampler sampler = new PolySampler();
            long[][] a = ring.zeros(total);
            long[][] b = ring.zeros(total);
            long[] e = new long[ring.n()];
            sampler.gaussian(e);
            for (int i = 0; i < total; i++) {
                sampler.uniform(ring.modulus(i), a[i]);
            }
            ring.fromSigned(e, b, all);
            final int first = gadget.firstPrime(j);
            final int end = gadget.endPrime(j, ring.qCount() - 1);
            ring.pool().forEach(total, i -> {
                Modulus m = ring.modulus(i);
                long[] bi = b[i];
                long[] ai = a[i];
                long[] si = sNtt[i];
                boolean inDigit = i >= first && i < end;
                long pq = inDigit ? m.toMont(pModQ[i]) : 0;
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
            key[j][0] = b;
            key[j][1] = a;
        }
        return new SwitchingKey(key);
    }
}
