package dev.polyhe.ckks.executor;

import dev.polyhe.ckks.ring.Automorphism;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import java.util.ArrayList;
import java.util.List;

/**
 * The ring arithmetic the CKKS scheme runs on, over polynomials that live wherever the executor keeps them. Every
 * operation reads limbs 0..level of its operands (which may hold more) and returns fresh handles of level + 1
 * limbs; operands are never written. Implementations are safe for concurrent use.
 */
public interface RingExecutor extends AutoCloseable {
    /** What and where, for reports: "JVM arrays, 2 threads", "NVIDIA H200 (driver 13.0)". */
    String describe();

    /** Bytes of the device memory the limbs live in, where that is not the JVM heap; 0 for host arrays. */
    default long deviceMemoryBytes() {
        return 0;
    }

    /**
     * Independent operations worth running at once from as many threads: the host's threads for an executor that
     * computes on them, the streams of one that queues on a device; 1 for one that serializes its operations, where
     * overlapping calls gain nothing.
     */
    default int concurrency() {
        return 1;
    }

    /**
     * Returns when every operation issued so far has finished. An executor that queues work on a device returns from
     * its operations before the device is done (reads wait by themselves); only timings need this. Default: nothing
     * is queued.
     */
    default void synchronize() {}

    /** Host limbs (NTT form, one {@code long[N]} per prime from q_0) to a handle; the executor may keep the arrays. */
    RnsPoly upload(long[][] limbs);

    /**
     * A plaintext's limbs over q_0..q_level (NTT form) from its integer coefficients (each |c| below 2^62): the RNS
     * reduction and the forward NTTs, done where the executor keeps its limbs (a device uploads the N coefficients
     * once and transforms them there). The encoder's FFT, scaling and rounding stay on the host.
     */
    RnsPoly fromCoefficients(long[] coefficients, int level);

    /**
     * A plaintext's limbs over q_0..q_level from its slot values, where the executor does the whole encoding
     * (CanonicalEncoder's: the special FFT, the scaling by scale / slots, the rounding, the residues, the NTTs) limb
     * for limb as the host does; null where it leaves the FFT to the host (the default). The caller guarantees that
     * every coefficient stays below 2^62 in magnitude.
     *
     * @param re the real parts of all {@code slots} slots (read, never written)
     * @param im the imaginary parts of all {@code slots} slots (read, never written)
     */
    default RnsPoly fromSlots(double[] re, double[] im, int slots, int level, double scale) {
        return null;
    }

    /** Limbs 0..limbs-1 of p as host arrays (NTT form), to be read, never written. */
    long[][] download(RnsPoly p, int limbs);

    /** Limbs 0..level of p, shared, not copied. */
    RnsPoly prefix(RnsPoly p, int level);

    RnsPoly add(RnsPoly a, RnsPoly b, int level);

    /**
     * fresh + b, possibly in place: {@code fresh} must be a result of this executor that no other handle shares
     * (a key switch's output, say), and is not to be used after.
     */
    RnsPoly addInto(RnsPoly fresh, RnsPoly b, int level);

    RnsPoly sub(RnsPoly a, RnsPoly b, int level);

    RnsPoly negate(RnsPoly a, int level);

    /** Coefficient-wise product (NTT form). */
    RnsPoly multiply(RnsPoly a, RnsPoly b, int level);

    /** {a0·b, a1·b}: a ciphertext times a plaintext; an executor may share the work on b between the two. */
    default RnsPoly[] multiplyPair(RnsPoly a0, RnsPoly a1, RnsPoly b, int level) {
        return new RnsPoly[] {multiply(a0, b, level), multiply(a1, b, level)};
    }

    /** {s0 + a0·b, s1 + a1·b}: a ciphertext times a plaintext, added to a sum of such products. */
    default RnsPoly[] multiplyPairAdd(RnsPoly s0, RnsPoly s1, RnsPoly a0, RnsPoly a1, RnsPoly b, int level) {
        RnsPoly[] product = multiplyPair(a0, a1, b, level);
        return new RnsPoly[] {add(s0, product[0], level), add(s1, product[1], level)};
    }

    /**
     * {s0 + Σ_t a0[t]·b[t], s1 + Σ_t a1[t]·b[t]}: ciphertexts times plaintexts summed, s0 and s1 null for none; an
     * executor may make one pass for all the terms.
     */
    default RnsPoly[] multiplyPairSum(RnsPoly s0, RnsPoly s1, RnsPoly[] a0, RnsPoly[] a1, RnsPoly[] b, int level) {
        RnsPoly[] sum = s0 == null ? null : new RnsPoly[] {s0, s1};
        for (int t = 0; t < b.length; t++) {
            sum = sum == null
                    ? multiplyPair(a0[t], a1[t], b[t], level)
                    : multiplyPairAdd(sum[0], sum[1], a0[t], a1[t], b[t], level);
        }
        return sum;
    }

    /** Limb i times scalars[i] (reduced mod q_i). */
    RnsPoly multiplyScalars(RnsPoly a, long[] scalars, int level);

    /** Limb i plus scalars[i] in every coefficient (a constant polynomial, NTT form). */
    RnsPoly addScalars(RnsPoly a, long[] scalars, int level);

    /** (x0, x1) ⊗ (y0, y1) = {x0·y0, x0·y1 + x1·y0, x1·y1}. */
    RnsPoly[] tensor(RnsPoly x0, RnsPoly x1, RnsPoly y0, RnsPoly y1, int level);

    /** a(X^g) in NTT form. */
    RnsPoly automorphism(RnsPoly a, Automorphism g, int level);

    /** Each polynomial divided by q_level with rounding, on limbs 0..level-1. */
    RnsPoly[] rescale(RnsPoly[] polys, int level);

    /** The gadget digits of d raised to Q_level ∪ P (ModUp), to share among keys. */
    KeySwitchDigits decompose(RnsPoly d, int level);

    /** (Σ_j D_j·key_j) / P: the two key-switched components over Q_level. */
    RnsPoly[] applyKey(KeySwitchDigits digits, SwitchingKey key, int level);

    /**
     * (d[0], d[1]) + KS(d[2]) divided by q_level with rounding, on limbs 0..level-1: a tensor product relinearized
     * and rescaled. An executor may divide by P·q_level at once, one ModDown instead of a ModDown and a rescale; the
     * default relinearizes, then rescales.
     */
    default RnsPoly[] relinearizeRescale(RnsPoly[] d, SwitchingKey key, int level) {
        RnsPoly[] ks = applyKey(decompose(d[2], level), key, level);
        return rescale(new RnsPoly[] {addInto(ks[0], d[0], level), addInto(ks[1], d[1], level)}, level);
    }

    /**
     * Σ_t σ_t(KS(ds[t], keys[t])): several key switches, each followed by its automorphism, summed. An executor
     * may sum them over Q_level ∪ P and divide by P once (the ModDowns are a third of a rotation); the default
     * switches and permutes each on its own. Consecutive terms of one polynomial (the same handle) share its
     * decomposition.
     */
    default RnsPoly[] keySwitchSum(RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, int level) {
        RnsPoly[] sum = null;
        KeySwitchDigits digits = null;
        for (int t = 0; t < ds.length; t++) {
            if (t == 0 || ds[t] != ds[t - 1]) {
                digits = decompose(ds[t], level);
            }
            RnsPoly[] ks = applyKey(digits, keys[t], level);
            RnsPoly c0 = automorphism(ks[0], autos[t], level);
            RnsPoly c1 = automorphism(ks[1], autos[t], level);
            sum = sum == null
                    ? new RnsPoly[] {c0, c1}
                    : new RnsPoly[] {addInto(sum[0], c0, level), addInto(sum[1], c1, level)};
        }
        return sum;
    }

    /**
     * ({@link #keySwitchSum} + (d0, d1)) divided by q_level with rounding, on limbs 0..level-1 ({@code d1} may be
     * null: zero): giant steps summed and rescaled. An executor may divide by P·q_level at once, as
     * {@link #relinearizeRescale} does; the default switches, adds, then rescales.
     */
    default RnsPoly[] keySwitchSumRescale(
            RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, RnsPoly d0, RnsPoly d1, int level) {
        RnsPoly[] ks = keySwitchSum(ds, keys, autos, level);
        return rescale(
                new RnsPoly[] {addInto(ks[0], d0, level), d1 == null ? ks[1] : addInto(ks[1], d1, level)}, level);
    }

    /**
     * Whether {@link #diagonalsRescale} reads its diagonals' special-prime limbs (it double-hoists): the diagonals
     * are then encoded over Q_level ∪ P, else over Q_level alone.
     */
    default boolean hoistsDiagonals() {
        return false;
    }

    /**
     * A linear transform's diagonal (NTT form, the limbs {@link #diagonalsRescale} reads) to a handle in the form it
     * reads them: as {@link #upload} by default. Only {@link #diagonalsRescale} accepts it.
     */
    default RnsPoly uploadDiagonal(long[][] limbs) {
        return upload(limbs);
    }

    /**
     * Σ_g σ_g(Σ_b diagonals[g][b] ⊙ σ_b(c)) divided by q_level with rounding, on limbs 0..level-1: a baby-step
     * giant-step product by a matrix's diagonals, rescaled (the bootstrap's linear transforms). Baby step b is the
     * automorphism babyAutos[b] with key babyKeys[b], giant step g giantAutos[g] with giantKeys[g]; a null key is the
     * identity. diagonals[g][b] ({@link #uploadDiagonal}) is null where the matrix has none, and holds the limbs
     * of Q_level ∪ P ({@code RnsRing.extendedIndex} order) where {@link #hoistsDiagonals}. The default rotates the
     * baby steps from one decomposition, sums their products per giant step, and switches the giant steps with
     * {@link #keySwitchSumRescale}; an executor that double-hoists keeps the baby steps over Q_level ∪ P and saves
     * their ModDowns.
     */
    default RnsPoly[] diagonalsRescale(
            RnsPoly c0,
            RnsPoly c1,
            SwitchingKey[] babyKeys,
            Automorphism[] babyAutos,
            RnsPoly[][] diagonals,
            SwitchingKey[] giantKeys,
            Automorphism[] giantAutos,
            int level) {
        KeySwitchDigits digits = null;
        RnsPoly[][] babies = new RnsPoly[babyKeys.length][];
        for (int b = 0; b < babies.length; b++) {
            if (babyKeys[b] == null) {
                babies[b] = new RnsPoly[] {c0, c1};
                continue;
            }
            digits = digits == null ? decompose(c1, level) : digits;
            RnsPoly[] ks = applyKey(digits, babyKeys[b], level);
            babies[b] = new RnsPoly[] {
                automorphism(addInto(ks[0], c0, level), babyAutos[b], level), automorphism(ks[1], babyAutos[b], level)
            };
        }
        List<RnsPoly> switched = new ArrayList<>();
        List<SwitchingKey> keys = new ArrayList<>();
        List<Automorphism> autos = new ArrayList<>();
        RnsPoly d0 = null;
        RnsPoly d1 = null;
        for (int g = 0; g < giantKeys.length; g++) {
            List<RnsPoly> x0 = new ArrayList<>();
            List<RnsPoly> x1 = new ArrayList<>();
            List<RnsPoly> ws = new ArrayList<>();
            for (int b = 0; b < babies.length; b++) {
                if (diagonals[g][b] != null) {
                    x0.add(babies[b][0]);
                    x1.add(babies[b][1]);
                    ws.add(diagonals[g][b]);
                }
            }
            if (ws.isEmpty()) {
                continue;
            }
            RnsPoly[] sum = multiplyPairSum(
                    null,
                    null,
                    x0.toArray(RnsPoly[]::new),
                    x1.toArray(RnsPoly[]::new),
                    ws.toArray(RnsPoly[]::new),
                    level);
            if (giantKeys[g] == null) {
                d0 = d0 == null ? sum[0] : addInto(d0, sum[0], level);
                d1 = d1 == null ? sum[1] : addInto(d1, sum[1], level);
                continue;
            }
            switched.add(sum[1]);
            keys.add(giantKeys[g]);
            autos.add(giantAutos[g]);
            RnsPoly moved = automorphism(sum[0], giantAutos[g], level);
            d0 = d0 == null ? moved : addInto(d0, moved, level);
        }
        if (switched.isEmpty()) {
            return rescale(new RnsPoly[] {d0, d1}, level);
        }
        return keySwitchSumRescale(
                switched.toArray(RnsPoly[]::new),
                keys.toArray(SwitchingKey[]::new),
                autos.toArray(Automorphism[]::new),
                d0,
                d1,
                level);
    }

    /** Key switching at level 0 with a key on q_0 and p_0 alone (the sparse-secret encapsulation). */
    RnsPoly[] switchAtLevelZero(RnsPoly d, SwitchingKey key);

    /** A level-0 polynomial's centred coefficients read as integers modulo q_0..q_top (bootstrapping's ModRaise). */
    RnsPoly modRaise(RnsPoly levelZero, int top);

    /** One forward NTT of one limb modulo q_0, in place on a limb the executor holds: the bench's "ntt" figure. */
    Runnable nttOfOneLimb();

    /** Releases what the executor holds (threads, device memory); handles are unusable after. */
    @Override
    void close();
}
