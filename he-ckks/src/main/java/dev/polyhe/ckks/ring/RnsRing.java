package dev.polyhe.ckks.ring;

/**
 * The ring Z_M[X]/(X^N + 1) for M the product of a list of primes: the ciphertext primes q_0..q_L first, then
 * the special primes p_0..p_{k-1}. Polynomials are arrays of limbs, one flat long[N] per prime, indexed like
 * the prime list; a polynomial at level l over Q uses limbs 0..l.
 */
public final class RnsRing {
    private final int logN;
    private final int n;
    private final Modulus[] moduli;
    private final NttTables[] ntt;
    private final int qCount;
    private final LimbPool pool;

    public RnsRing(int logN, long[] qPrimes, long[] pPrimes, LimbPool pool) {
        this.logN = logN;
        this.n = 1 << logN;
        this.qCount = qPrimes.length;
        this.pool = pool;
        int total = qPrimes.length + pPrimes.length;
        moduli = new Modulus[total];
        ntt = new NttTables[total];
        pool.forEach(total, i -> {
            long p = i < qPrimes.length ? qPrimes[i] : pPrimes[i - qPrimes.length];
            moduli[i] = new Modulus(p);
            ntt[i] = new NttTables(moduli[i], logN);
        });
    }

    public int logN() {
        return logN;
    }

    public int n() {
        return n;
    }

    public int qCount() {
        return qCount;
    }

    public int pCount() {
        return moduli.length - qCount;
    }

    /** Index in the prime list of special prime t. */
    public int pIndex(int t) {
        return qCount + t;
    }

    public Modulus modulus(int i) {
        return moduli[i];
    }

    public NttTables ntt(int i) {
        return ntt[i];
    }

    public LimbPool pool() {
        return pool;
    }

    /** A zero polynomial with limbs for the given prime indices. */
    public long[][] zeros(int limbs) {
        return new long[limbs][n];
    }

    /**
     * Prime index of limb position {@code pos} of a polynomial over Q_level ∪ P (limbs 0..level are q's,
     * the following ones the special primes).
     */
    public int extendedIndex(int level, int pos) {
        return pos <= level ? pos : qCount + (pos - level - 1);
    }

    /** Writes a small signed integer polynomial into limbs (residues mod each prime) and NTTs them. */
    public void fromSigned(long[] coefficients, long[][] out, int[] primeIndices) {
        pool.forEach(primeIndices.length, k -> {
            Modulus m = moduli[primeIndices[k]];
            long[] limb = out[k];
            residues(coefficients, m, limb);
            ntt[primeIndices[k]].forward(limb);
        });
    }

    /**
     * Limbs over Q_level ∪ P ({@link #extendedIndex} order) to Montgomery form, in place, on the pool: how the
     * double-hoisted transforms' diagonals are kept, whichever executor keeps them.
     */
    public void toMontgomery(long[][] limbs, int level) {
        pool.forEach(limbs.length, pos -> {
            Modulus m = modulus(extendedIndex(level, pos));
            long[] limb = limbs[pos];
            for (int c = 0; c < limb.length; c++) {
                limb[c] = m.toMont(limb[c]);
            }
        });
    }

    /**
     * The NTT-form limbs of the first {@code limbs} positions of Q_level ∪ P ({@link #extendedIndex} order) of the
     * polynomial with these signed integer coefficients: a residue each, then the forward NTTs, on the pool.
     */
    public long[][] fromIntegers(long[] coefficients, int level, int limbs) {
        long[][] out = new long[limbs][];
        pool.forEach(limbs, pos -> {
            int l = extendedIndex(level, pos);
            Modulus m = modulus(l);
            long[] limb = new long[coefficients.length];
            residues(coefficients, m, limb);
            ntt(l).forward(limb);
            out[pos] = limb;
        });
        return out;
    }

    /** out[c] = coefficients[c] mod m in [0, m), on SIMD lanes where they serve ({@link Simd}). */
    private static void residues(long[] coefficients, Modulus m, long[] out) {
        if (Simd.available() && SimdModular.fits(coefficients.length)) {
            SimdModular.residues(coefficients, m, out);
            return;
        }
        for (int c = 0; c < coefficients.length; c++) {
            out[c] = m.reduceSigned(coefficients[c]);
        }
    }

    /** Prime indices 0..level followed by all special primes. */
    public int[] extendedIndices(int level) {
        int[] idx = new int[level + 1 + pCount()];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = extendedIndex(level, i);
        }
        return idx;
    }

    /** Prime indices 0..level. */
    public static int[] prefix(int level) {
        int[] idx = new int[level + 1];
        for (int i = 0; i <= level; i++) {
            idx[i] = i;
        }
        return idx;
    }
}
