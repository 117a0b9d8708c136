package dev.polyhe.ckks.rlwe;

import dev.polyhe.ckks.ring.PolySampler;
import dev.polyhe.ckks.ring.RnsRing;

/** A ternary secret s: its signed coefficients and its NTT form modulo every prime of Q ∪ P. */
public final class RlweSecret {
    private final long[] coefficients;
    private final long[][] ntt;

    public RlweSecret(long[] coefficients, RnsRing ring) {
        this.coefficients = coefficients;
        int total = ring.qCount() + ring.pCount();
        int[] all = RnsRing.prefix(total - 1);
        this.ntt = ring.zeros(total);
        ring.fromSigned(coefficients, ntt, all);
    }

    /** Uniform ternary when hammingWeight is 0, otherwise sparse ternary with that many non-zero entries. */
    public static RlweSecret sample(RnsRing ring, int hammingWeight) {
        long[] s = new long[ring.n()];
        PolySampler sampler = PolySampler.forSecrets();
        if (hammingWeight == 0) {
            sampler.ternary(s);
        } else {
            sampler.sparseTernary(hammingWeight, s);
        }
        return new RlweSecret(s, ring);
    }

    /** Signed coefficients; callers must not modify them. */
    public long[] coefficients() {
        return coefficients;
    }

    /** NTT form, one limb per prime of Q ∪ P; callers must not modify it. */
    public long[][] ntt() {
        return ntt;
    }

    @Override
    public String toString() {
        return "RlweSecret[redacted]";
    }
}
