package dev.polyhe.ckks.ring;

/**
 * The Galois automorphism X -&gt; X^g (g odd) acting on polynomials in NTT form, where it is a permutation of
 * the evaluation slots: slot i holds a(psi^(2·bitrev(i)+1)), and a(X^g) there equals a at the slot whose
 * exponent is g·(2·bitrev(i)+1) mod 2N.
 */
public final class Automorphism {
    private final long galoisElement;
    private final int[] source;

    public Automorphism(int logN, long galoisElement) {
        if ((galoisElement & 1) == 0) {
            throw new IllegalArgumentException("Galois element " + galoisElement + " must be odd");
        }
        int n = 1 << logN;
        long twoN = 2L * n;
        this.galoisElement = Math.floorMod(galoisElement, twoN);
        source = new int[n];
        for (int i = 0; i < n; i++) {
            long e = 2L * NttTables.bitReverse(i, logN) + 1;
            long f = (e * this.galoisElement) % twoN;
            source[i] = NttTables.bitReverse((int) ((f - 1) >>> 1), logN);
        }
    }

    public long galoisElement() {
        return galoisElement;
    }

    /** out[i] = in[permutation[i]]: the slot each output slot reads (a copy). */
    public int[] permutation() {
        return source.clone();
    }

    /** out = a(X^g) for one limb in NTT form; out must not alias in. */
    public void apply(long[] in, long[] out) {
        int[] src = source;
        for (int i = 0; i < src.length; i++) {
            out[i] = in[src[i]];
        }
    }
}
