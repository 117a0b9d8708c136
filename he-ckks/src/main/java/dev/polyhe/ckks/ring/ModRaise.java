package dev.polyhe.ckks.ring;

/**
 * Lifts a polynomial mod q_0 to Q_top: its coefficients, centred in (−q_0/2, q_0/2], are read as integers and
 * reduced by every prime. The decryption c0 + c1·s then becomes Δ·m + e + q_0·I(X) over the full modulus,
 * with |I| bounded through the secret's Hamming weight (see dev.polyhe.ckks.bootstrap.BootstrapParameters).
 */
public final class ModRaise {
    private final RnsRing ring;

    public ModRaise(RnsRing ring) {
        this.ring = ring;
    }

    /** limb: mod q_0 in NTT form; returns limbs 0..top in NTT form. */
    public long[][] raise(long[] limb, int top) {
        Modulus q0 = ring.modulus(0);
        long q = q0.value();
        long half = q >>> 1;
        long[] coef = limb.clone();
        ring.ntt(0).inverse(coef);
        for (int i = 0; i < coef.length; i++) {
            long c = coef[i];
            coef[i] = c > half ? c - q : c;
        }
        long[][] out = ring.zeros(top + 1);
        ring.fromSigned(coef, out, RnsRing.prefix(top));
        return out;
    }
}
